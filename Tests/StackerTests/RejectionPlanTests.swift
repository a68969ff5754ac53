import Registration
@testable import Stacker
import Testing

/// What `--reject`, `--rejection-map` and `--keep` change in the run's plan.
@Suite("Stack plan: rejection and selection")
struct RejectionPlanTests {
    static let rgb8 = StackPlan.Reference(width: 4000, height: 3000, channels: 3, bitDepth: 8, ycbcrFactor: nil)

    @Test("--reject sigma is the sigma-clip kernel; the rest of the family its own kernel, on Y, Cb, Cr for JPEG")
    func kernels() {
        let sigma = StackPlanTests.options(.average) { $0.rejection = .named(.sigma, low: 2, high: 4) }
        #expect(StackPlan.robustKernel(sigma) == .sigmaClip(kappaLow: 2, kappaHigh: 4, maxIterations: 5))
        let mad = StackPlanTests.options(.average) { $0.rejection = .named(.mad) }
        #expect(StackPlan.robustKernel(mad) == .rejection(.mad(kappaLow: 3, kappaHigh: 3)))
        #expect(StackPlan.referenceForm(mad) == .ycbcr(factor: 2))
        let plan = StackPlan(options: mad, reference: StackPlanTests.jpeg420)
        guard case .robust(.rejection, let luma, _?, 2) = plan.combination else {
            Issue.record("expected a Y, Cb, Cr rejection, got \(plan.combination)")
            return
        }
        #expect(luma.deferred && !plan.makesRejectionMap)
    }

    @Test("a rejection map takes RGB bytes and a store warped as frames come (not deferred)")
    func map() {
        let o = StackPlanTests.options(.sigmaClip) { $0.makesRejectionMap = true }
        #expect(StackPlan.referenceForm(o) == .bytes)
        let plan = StackPlan(options: o, reference: Self.rgb8)
        guard case .robust(.sigmaClip, let main, nil, nil) = plan.combination else {
            Issue.record("expected an RGB sigma-clip, got \(plan.combination)")
            return
        }
        #expect(!main.deferred && main.channels == 3 && plan.makesRejectionMap)
    }

    @Test("--keep turns the average into a store's mean, so frames can leave before the reduce")
    func keepAverage() {
        let o = StackPlanTests.options(.average) { $0.keep = .percent(80) }
        #expect(StackPlan.robustKernel(o) == .mean)
        #expect(StackPlan.referenceForm(o) == .ycbcr(factor: 2))
        #expect(StackPlan.robustKernel(StackPlanTests.options(.average)) == nil)
    }
}

import Registration
@testable import Stacker
import Testing

/// The run's decisions, checked as a value: no files, no frames.
@Suite("Stack plan")
struct StackPlanTests {
    static let jpeg420 = StackPlan.Reference(width: 4000, height: 3000, channels: 3, bitDepth: 8, ycbcrFactor: 2)

    static func options(_ mode: StackMode, _ edit: (inout StackOptions) -> Void = { _ in }) -> StackOptions {
        var o = StackOptions()
        o.mode = mode
        edit(&o)
        return o
    }

    @Test("the reference's decode form follows the mode and what touches the samples first")
    func referenceForm() {
        #expect(StackPlan.referenceForm(Self.options(.average)) == .ycbcr(factor: nil))
        #expect(StackPlan.referenceForm(Self.options(.median)) == .ycbcr(factor: 2))
        #expect(StackPlan.referenceForm(Self.options(.sigmaClip)) == .ycbcr(factor: 2))
        #expect(StackPlan.referenceForm(Self.options(.mode)) == .bytes)
        #expect(StackPlan.referenceForm(Self.options(.median) { $0.stackInYCbCr = false }) == .bytes)
        #expect(StackPlan.referenceForm(Self.options(.median) { $0.normalization = .additive }) == .floats)
        #expect(StackPlan.referenceForm(Self.options(.average) { $0.calibration.dark = ["d.fits"] }) == .floats)
    }

    @Test("a 20-frame 12 MP 4:2:0 median: 8-bit luma store, 16-bit chroma, deferred warps, limit shared by bytes")
    func jpegMedian() {
        let plan = StackPlan(options: Self.options(.median), reference: Self.jpeg420)
        #expect(plan.form == .ycbcr(factor: 2))
        guard case .robust(.median, let luma, let chroma?, 2) = plan.combination else {
            Issue.record("expected a Y, Cb, Cr median, got \(plan.combination)")
            return
        }
        #expect(luma.depth == .eight && luma.channels == 1 && luma.deferred)
        #expect(chroma.depth == .sixteen && chroma.channels == 2 && chroma.width == 2000 && chroma.deferred)
        // Deferred: 1 byte per decoded sample, 4 luma samples to 2 chroma per 2 × 2 block.
        #expect(luma.memoryLimit == Int(Double(2 << 30) * 4 / 6))
        #expect(luma.memoryLimit + chroma.memoryLimit == 2 << 30)
        #expect(!plan.measuresBackground && !plan.weightsByNoise)
    }

    @Test("8-bit warps are deferred for any alignment and any memory limit; not for a rejection map")
    func deferral() {
        let homography = StackPlan(options: Self.options(.median) { $0.alignment = .homography },
                                   reference: Self.jpeg420)
        let local = StackPlan(options: Self.options(.median) { $0.alignment = .local },
                              reference: Self.jpeg420)
        let rejectionMap = StackPlan(options: Self.options(.median) {
            $0.alignment = .homography
            $0.makesRejectionMap = true
        }, reference: Self.jpeg420)
        let small = StackPlan(options: Self.options(.median) { $0.memoryLimit = 100 << 20 },
                              reference: Self.jpeg420)
        let given = StackPlan(options: Self.options(.median) {
            $0.alignment = .homography
            $0.givenTransforms = Array(repeating: .translation(dx: 1, dy: 2), count: 20)
        }, reference: Self.jpeg420)
        for (plan, deferred) in [(homography, true), (local, true), (small, true), (given, true),
                                 (rejectionMap, false)] {
            guard case .robust(_, let luma, _, _) = plan.combination else {
                Issue.record("expected a robust plan")
                continue
            }
            #expect(luma.deferred == deferred)
        }
    }

    @Test("calibrated, 16-bit and mode runs: a float store for calibrated frames, floats, background measured")
    func calibratedAndMode() {
        let fits = StackPlan.Reference(width: 3000, height: 2000, channels: 1, bitDepth: 16, ycbcrFactor: nil)
        let calibrated = StackPlan(options: Self.options(.sigmaClip) {
            $0.alignment = .stars
            $0.weighting = .auto
            $0.calibration.flat = ["flats"]
        }, reference: fits)
        #expect(calibrated.form == .floats)
        #expect(calibrated.measuresBackground && calibrated.weightsByNoise)
        guard case .robust(.sigmaClip, let store, nil, nil) = calibrated.combination else {
            Issue.record("expected one sigma-clip store, got \(calibrated.combination)")
            return
        }
        // Calibrated values may lie outside 0…1: the store keeps floats.
        #expect(store.depth == .float32 && store.channels == 1 && !store.deferred)

        let rgb = StackPlan.Reference(width: 640, height: 480, channels: 3, bitDepth: 8, ycbcrFactor: nil)
        let mode = StackPlan(options: Self.options(.mode), reference: rgb)
        #expect(mode.form == .bytes)
        guard case .robust(.mode, let modeStore, nil, nil) = mode.combination else {
            Issue.record("expected one mode store")
            return
        }
        #expect(modeStore.depth == .eight && modeStore.channels == 3 && modeStore.deferred)
        let average = StackPlan(options: Self.options(.average), reference: Self.jpeg420)
        #expect(average.combination == .average(ycbcrFactor: 2))
    }
}

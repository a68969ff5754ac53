import Foundation
import Registration
import Stacker
import TestSupport
import Testing

/// The drizzle accumulator on frames whose answer is known exactly.
@Suite("Drizzle kernel")
struct DrizzleKernelTests {
    static func noisePlane(width: Int, height: Int, seed: UInt64) -> Plane {
        var rng = TestRandom(seed: seed)
        return Plane(width: width, height: height, pixels: (0..<(width * height)).map { _ in Float(rng.uniform()) })
    }

    static func drizzled(_ frames: [(Plane, Transform)], options: DrizzleOptions, threads: Int = 2) -> (image: Image, weights: Plane) {
        let first = frames[0].0
        let accumulator = DrizzleAccumulator(inputWidth: first.width, inputHeight: first.height, channels: 1,
                                             mosaic: false, options: options)
        for (plane, transform) in frames {
            accumulator.add(DrizzleFrame(planes: [plane], transform: transform, options: options), weight: 1, threads: threads)
        }
        return accumulator.finish { _, _, _ in -1 }
    }

    @Test("scale 1, pixfrac 1, identity: the frame comes back exactly, with weight 1 everywhere")
    func identity() {
        let plane = Self.noisePlane(width: 37, height: 29, seed: 3)
        let out = Self.drizzled([(plane, .identity)], options: DrizzleOptions(scale: 1, pixfrac: 1))
        #expect(out.image.planes[0].pixels == plane.pixels)
        #expect(out.weights.pixels.allSatisfy { abs($0 - 1) < 1e-6 })
    }

    @Test("scale 2: an integer shift of one frame moves its drops by two output pixels")
    func integerShift() {
        let plane = Self.noisePlane(width: 24, height: 20, seed: 5)
        let out = Self.drizzled([(plane, .translation(dx: 3, dy: -2))], options: DrizzleOptions(scale: 2, pixfrac: 1))
        var worst: Float = 0
        // Input (x, y) lands on reference (x + 3, y − 2): output pixels 2(x + 3) + {0, 1}, 2(y − 2) + {0, 1}.
        for y in 2..<20 { for x in 0..<21 { for oy in 0...1 { for ox in 0...1 {
            worst = max(worst, abs(out.image.planes[0][2 * (x + 3) + ox, 2 * (y - 2) + oy] - plane[x, y]))
        } } } }
        #expect(worst < 1e-6, "largest error \(worst)")
        // Output rows above the shifted frame's top got no drop: the fill (−1) and weight 0.
        #expect(out.image.planes[0][10, out.image.height - 1] == -1)
        #expect(out.weights[10, out.weights.height - 1] == 0)
    }

    @Test("a flat field stays flat at any subpixel shift, pixfrac and kernel, with no holes inside", arguments: DrizzleKernel.allCases)
    func flatField(kernel: DrizzleKernel) {
        let flat = Plane(width: 32, height: 32, repeating: 0.25)
        var rng = TestRandom(seed: 9)
        let frames = (0..<8).map { _ in (flat, Transform.translation(dx: rng.symmetric(1), dy: rng.symmetric(1))) }
        for options in [DrizzleOptions(scale: 2, pixfrac: 0.6, kernel: kernel), DrizzleOptions(scale: 1.5, pixfrac: 1, kernel: kernel),
                        DrizzleOptions(scale: 3, pixfrac: 0.8, kernel: kernel)] {
            let out = Self.drizzled(frames, options: options)
            let edge = Int((2 * options.scale).rounded(.up)) + 1
            var worst: Float = 0, least = Float.infinity
            for y in edge..<(out.image.height - edge) { for x in edge..<(out.image.width - edge) {
                worst = max(worst, abs(out.image.planes[0][x, y] - 0.25))
                least = min(least, out.weights[x, y])
            } }
            #expect(worst < 1e-5, "scale \(options.scale) pixfrac \(options.pixfrac): largest error \(worst)")
            #expect(least > 0, "scale \(options.scale) pixfrac \(options.pixfrac): least weight \(least)")
        }
    }

    @Test("a rotated frame (stars-like similarity) keeps a flat field flat")
    func rotation() {
        let flat = Plane(width: 40, height: 40, repeating: 0.5)
        let angle = 3.0 * Double.pi / 180, c = cos(angle), s = sin(angle)
        let turned = Transform(matrix: [c, -s, 1.3, s, c, -0.7, 0, 0, 1])
        let out = Self.drizzled([(flat, .identity), (flat, turned)], options: DrizzleOptions(scale: 2, pixfrac: 1))
        var worst: Float = 0
        for y in 10..<70 { for x in 10..<70 { worst = max(worst, abs(out.image.planes[0][x, y] - 0.5)) } }
        #expect(worst < 1e-5, "largest error \(worst)")
    }

    @Test("the sums do not depend on the thread count")
    func threads() {
        let plane = Self.noisePlane(width: 50, height: 70, seed: 11)
        let frames = [(plane, Transform.translation(dx: 0.3, dy: 0.7)), (plane, Transform.translation(dx: -0.4, dy: 0.1))]
        let options = DrizzleOptions(scale: 2, pixfrac: 0.7, kernel: .gaussian)
        #expect(Self.drizzled(frames, options: options, threads: 1).image == Self.drizzled(frames, options: options, threads: 3).image)
    }

    @Test("Bayer drizzle: each CFA sample lands in its own colour plane, no demosaicing")
    func bayer() {
        // An RGGB mosaic of a flat colour (0.2, 0.5, 0.8), seen by 8 frames at subpixel shifts.
        let pattern = BayerPattern.rggb, colour: [Float] = [0.2, 0.5, 0.8]
        var mosaic = Plane(width: 30, height: 30)
        for y in 0..<30 { for x in 0..<30 { mosaic.pixels[y * 30 + x] = colour[pattern.channel(x: x, y: y)] } }
        let options = DrizzleOptions(scale: 2, pixfrac: 1)
        let accumulator = DrizzleAccumulator(inputWidth: 30, inputHeight: 30, channels: 3, mosaic: true, options: options)
        var rng = TestRandom(seed: 4)
        for _ in 0..<8 {
            let frame = DrizzleFrame(planes: [mosaic], mosaic: pattern,
                                     transform: .translation(dx: rng.symmetric(1), dy: rng.symmetric(1)), options: options)
            accumulator.add(frame, weight: 1, threads: 2)
        }
        let out = accumulator.finish { _, _, _ in 0 }
        #expect(out.image.channels == 3)
        for c in 0..<3 {
            var worst: Float = 0
            for y in 8..<52 { for x in 8..<52 { worst = max(worst, abs(out.image.planes[c][x, y] - colour[c])) } }
            #expect(worst < 1e-5, "channel \(c): largest error \(worst)")
        }
        var least = Float.infinity
        for y in 8..<52 { for x in 8..<52 { least = min(least, out.weights[x, y]) } }
        #expect(least > 0, "least weight over the three colours \(least)")
    }
}

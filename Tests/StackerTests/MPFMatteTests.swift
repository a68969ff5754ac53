import Foundation
import Testing
import Registration
import TestSupport
@testable import Stacker

/// The images after the photo in an iPhone-style portrait JPEG's MPF index,
/// each identified by the `apdi:AuxiliaryImageType` of its own XMP: the
/// disparity or depth map and the portrait mattes (`PortraitData.read`,
/// `MPFAuxiliaryImage`), on a generated portrait (`PortraitScene`) whose
/// mattes are planted shapes.
@Suite("MPF mattes")
struct MPFMatteTests {
    static let scene = PortraitScene()

    /// Each planted matte: a box in coordinates scaled to 0…1 whose sides
    /// fall on pixel edges of the half-size grid the mattes are stored at
    /// (multiples of 1/64 across, 1/48 down), so the stored matte is exactly
    /// the photo-size truth at half size; apart from the others, so a matte
    /// read for another would score low.
    static let shapes: [(matte: Matte, type: String, inside: @Sendable (Float, Float) -> Bool)] = [
        (.person, "urn:com:apple:photo:2018:aux:portraiteffectsmatte", { u, v in abs(u - 0.5) <= 20 / 64 && v >= 6 / 48 }),
        (.hair, "urn:com:apple:photo:2019:aux:semantichairmatte", { u, v in abs(u - 0.5) <= 10 / 64 && v < 15 / 48 }),
        (.skin, "urn:com:apple:photo:2019:aux:semanticskinmatte", { u, v in abs(u - 0.5) <= 8 / 64 && v >= 15 / 48 && v < 27 / 48 }),
        (.teeth, "urn:com:apple:photo:2019:aux:semanticteethmatte", { u, v in abs(u - 0.5) <= 4 / 64 && abs(v - 0.5) <= 2 / 48 }),
        (.glasses, "urn:com:apple:photo:2020:aux:semanticglassesmatte", { u, v in abs(u - 0.5) <= 9 / 64 && v >= 16 / 48 && v < 21 / 48 }),
    ]

    /// `inside` sampled at pixel centres on a `width × height` grid: 1 in, 0 out.
    static func plane(width: Int, height: Int, _ inside: (Float, Float) -> Bool) -> Plane {
        var p = Plane(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width where inside((Float(x) + 0.5) / Float(width), (Float(y) + 0.5) / Float(height)) { p[x, y] = 1 }
        }
        return p
    }

    /// |A ∩ B| / |A ∪ B| of `a > 0.5` and `b > 0.5`.
    static func iou(_ a: Plane, _ b: Plane) -> Double {
        var both = 0, either = 0
        for (p, q) in zip(a.pixels, b.pixels) {
            if p > 0.5 && q > 0.5 { both += 1 }
            if p > 0.5 || q > 0.5 { either += 1 }
        }
        return either == 0 ? 0 : Double(both) / Double(either)
    }

    /// A portrait JPEG whose MPF images are, in this order: an HDR gain map
    /// (gray, a horizontal ramp: what a reader going by position would take
    /// for depth), the skin matte, the disparity map, then the other mattes;
    /// types alternate between element and attribute form.
    static func portrait(withGlasses: Bool) throws -> [UInt8] {
        let d = scene.disparity()
        let (w, h) = (d.width, d.height)
        let ramp = Plane(width: w, height: h, pixels: (0..<(w * h)).map { Float($0 % w) / Float(w - 1) })
        var images = [PortraitScene.MPFImage(plane: ramp, type: "urn:com:apple:photo:2020:aux:hdrgainmap")]
        var mattes = shapes.filter { withGlasses || $0.matte != .glasses }
            .map { PortraitScene.MPFImage(plane: plane(width: w, height: h, $0.inside), type: $0.type) }
        images.append(mattes.remove(at: 2))  // skin
        images.append(PortraitScene.MPFImage(plane: d, type: "disparity",
                                             extraXMP: "<apdi:FloatMinValue>0.1</apdi:FloatMinValue><apdi:FloatMaxValue>1.5</apdi:FloatMaxValue>"))
        images += mattes
        for k in images.indices where k % 2 == 1 { images[k].attribute = true }
        return try scene.mpfJPEG(images: images)
    }

    @Test("each matte of an MPF portrait is read by its own XMP type, not its position: stored values within 0.05 of the planted matte; the gain map is not taken for depth")
    func mattesByType() throws {
        let folder = try TestFiles.temporaryFolder("mpf-mattes")
        defer { TestFiles.remove(folder) }
        let path = try TestFiles.write(try Self.portrait(withGlasses: true), "portrait.jpg", in: folder)
        #expect(try ImageFile.read(path).image.width == Self.scene.width)
        let data = try PortraitData.read(path)
        #expect(Set(data.mattes.keys) == Set(Matte.allCases))
        let d = Self.scene.disparity()
        for shape in Self.shapes {
            let read = try #require(data.mattes[shape.matte])
            let planted = Self.plane(width: d.width, height: d.height, shape.inside)
            #expect(read.width == planted.width && read.height == planted.height)
            // Quality-100 JPEG of a two-level map: a few levels of ringing at most.
            let worst = zip(read.pixels, planted.pixels).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 0.05, "\(shape.matte): worst \(worst)")
        }
        // The disparity, not the gain map's ramp (which is 0 on the left edge and 1 on the right).
        #expect(data.source == .mpfDisparity)
        let nearness = try #require(data.nearness)
        #expect(nearness[nearness.width / 2, nearness.height / 2] > 0.9 && nearness[0, 0] < 0.1
                && nearness[nearness.width - 1, 0] < 0.1, "centre \(nearness[nearness.width / 2, nearness.height / 2])")
    }

    @Test("--matte NAME on an MPF portrait masks with that matte: IoU ≥ 0.9 against its planted shape, ≤ 0.5 against every other; a missing matte gives nil")
    func matteIsPicked() throws {
        let folder = try TestFiles.temporaryFolder("mpf-matte-pick")
        defer { TestFiles.remove(folder) }
        let path = try TestFiles.write(try Self.portrait(withGlasses: false), "portrait.jpg", in: folder)
        let (w, h) = (Self.scene.width, Self.scene.height)
        var options = EffectOptions()
        options.effect = .mask
        for shape in Self.shapes where shape.matte != .glasses {
            options.matte = shape.matte
            let outcome = try #require(try PortraitEffect.apply(to: path, options: options))
            #expect(outcome.maskSource == "matte \(shape.matte.rawValue)" && outcome.focus == nil)
            let mask = outcome.image.planes[0]
            let own = Self.iou(mask, Self.plane(width: w, height: h, shape.inside))
            #expect(own >= 0.9, "\(shape.matte): IoU \(own)")
            for other in Self.shapes where other.matte != shape.matte {
                let cross = Self.iou(mask, Self.plane(width: w, height: h, other.inside))
                #expect(cross <= 0.5, "\(shape.matte) against \(other.matte): IoU \(cross)")
            }
        }
        options.matte = .glasses
        #expect(try PortraitEffect.apply(to: path, options: options) == nil)
    }

    @Test("an MPF depth image (distance, apdi range 1…4 m) is turned into nearness: the subject 1, the background 0; an unlabelled gray image is not used beside a labelled one")
    func depthTypeAndLabels() throws {
        let folder = try TestFiles.temporaryFolder("mpf-depth")
        defer { TestFiles.remove(folder) }
        let d = Self.scene.disparity()
        // Distance 1 m on the subject, 4 m behind: stored (d − 1) / 3.
        let stored = Plane(width: d.width, height: d.height,
                           pixels: d.pixels.map { $0 > 0.5 ? 0 : 1 })
        let range = "<apdi:FloatMinValue>1</apdi:FloatMinValue><apdi:FloatMaxValue>4</apdi:FloatMaxValue>"
        // An unlabelled gray ramp first: with a labelled depth map present it is not depth.
        let ramp = Plane(width: d.width, height: d.height, pixels: (0..<(d.width * d.height)).map { Float($0 % d.width) / Float(d.width - 1) })
        let path = try TestFiles.write(try Self.scene.mpfJPEG(images: [
            PortraitScene.MPFImage(plane: ramp),
            PortraitScene.MPFImage(plane: stored, type: "depth", extraXMP: range),
        ]), "depth.jpg", in: folder)
        let nearness = try #require(try PortraitData.read(path).nearness)
        #expect(nearness[nearness.width / 2, nearness.height / 2] > 0.95 && nearness[0, 0] < 0.05
                && nearness[nearness.width - 1, 0] < 0.05)
        #expect(MPFAuxiliaryImage.kind(ofType: "urn:com:apple:photo:2020:aux:hdrgainmap") == .other)
        #expect(MPFAuxiliaryImage.kind(ofType: "Disparity") == .disparity)
        // Distances 1 and 4 m are nearness 1/1 and 1/4: half way in distance (2.5 m) is 0.2 after stretching, not 0.5.
        let image = MPFAuxiliaryImage.kind(ofType: "depth")
        #expect(image == .depth)
        var probe = try #require(MPFAuxiliaryImage.all(in: try Data(contentsOf: URL(fileURLWithPath: path)).map { $0 }).last)
        probe.floatRange = 1...4
        let mid = PortraitData.stretched(probe.nearness(fromDepth: Plane(width: 3, height: 1, pixels: [0, 0.5, 1])))
        #expect(abs(mid.pixels[1] - 0.2) < 1e-5, "\(mid.pixels)")
    }
}

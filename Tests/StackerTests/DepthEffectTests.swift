import Foundation
import Testing
import Registration
import TestSupport
@testable import Stacker

/// Depth reading, masks and effects (`PortraitData`, `EffectMask`,
/// `DepthEffect`, `PortraitEffect`) on a generated portrait whose subject
/// and depths are known (`PortraitScene`), and on a real iPhone HEIC.
@Suite("Depth effects")
struct DepthEffectTests {
    static let scene = PortraitScene()

    /// The scene's half-size disparity map as a HEIF reader would give it.
    static var sceneData: PortraitData {
        PortraitData(nearness: PortraitData.stretched(scene.disparity()), source: .heifDepth)
    }

    /// `effect` applied to the scene through its depth (auto focus, band mask).
    static func applied(_ effect: DepthEffect, settings: DepthEffect.Settings = .init()) -> Image {
        var options = EffectOptions()
        options.effect = effect
        options.settings = settings
        return PortraitEffect.apply(to: scene.photo, data: sceneData, options: options)!.image
    }

    /// The largest difference, in 8-bit levels, between `a` and `b` over `pixels`, all channels.
    static func worstLevels(_ a: Image, _ b: Image, _ pixels: [Int]) -> Float {
        var worst: Float = 0
        for c in 0..<min(a.channels, b.channels) {
            for i in pixels { worst = max(worst, abs(a.planes[c].pixels[i] - b.planes[c].pixels[i]) * 255) }
        }
        return worst
    }

    @Test("auto focus finds the subject's depth, and the band mask on the photo's grid matches the subject (IoU ≥ 0.95)")
    func maskFollowsSubject() throws {
        let aligned = Self.sceneData.aligned(to: Self.scene.photo)
        let nearness = try #require(aligned.nearness)
        #expect(nearness.width == Self.scene.width && nearness.height == Self.scene.height)
        let focus = EffectMask.autoFocus(nearness)
        // Stretched, the subject's nearness is 1 and the background's 0.
        #expect(abs(focus - 1) < 0.05, "auto focus \(focus)")
        let band = EffectMask.band(nearness, focus: focus, width: 0.1, slope: 4)
        let iou = Self.scene.intersectionOverUnion(band)
        #expect(iou >= 0.95, "IoU \(iou)")
        // The joint bilateral upsampling is what makes the edge follow the photo: plain bilinear is worse.
        let bilinear = EffectMask.band(PortraitData.stretched(Self.scene.disparity()).bilinearResized(
            width: Self.scene.width, height: Self.scene.height), focus: focus, width: 0.1, slope: 4)
        #expect(iou >= Self.scene.intersectionOverUnion(bilinear), "joint bilateral \(iou) against bilinear \(Self.scene.intersectionOverUnion(bilinear))")
        // Focusing on the background selects the background instead.
        let back = EffectMask.band(nearness, focus: 0, width: 0.1, slope: 4)
        #expect(Self.scene.intersectionOverUnion(EffectMask.inverted(back)) >= 0.95)
    }

    @Test("band and high-pass masks: 1 in the band, linear over 1/slope, 0 beyond; inversion")
    func maskShapes() {
        let d = Plane(width: 7, height: 1, pixels: [0.2, 0.3, 0.45, 0.5, 0.55, 0.7, 0.9])
        let band = EffectMask.band(d, focus: 0.5, width: 0.1, slope: 4)
        let expected: [Float] = [0, 0.4, 1, 1, 1, 0.4, 0]
        #expect(zip(band.pixels, expected).allSatisfy { abs($0 - $1) < 1e-5 }, "\(band.pixels)")
        let high = EffectMask.highPass(d, focus: 0.5, slope: 4)
        #expect(zip(high.pixels, [0, 0.2, 0.8, 1, 1, 1, 1] as [Float]).allSatisfy { abs($0 - $1) < 1e-5 }, "\(high.pixels)")
        #expect(EffectMask.inverted(band).pixels == band.pixels.map { 1 - $0 })
    }

    @Test("auto focus picks the nearest object holding ≥ 5 % of the pixels, not a nearer speck or the larger background")
    func autoFocusNearestMode() {
        var pixels = [Float](repeating: 0.2, count: 10_000)          // background, 70 %
        for i in 0..<2_700 { pixels[i] = 0.6 }                        // subject, 27 %
        for i in 2_700..<2_900 { pixels[i] = 0.95 }                   // a speck, 2 %
        let focus = EffectMask.autoFocus(Plane(width: 100, height: 100, pixels: pixels))
        #expect(abs(focus - 0.6) < 0.02, "focus \(focus)")
    }

    @Test("every effect leaves the subject within 1 level; the background changes as specified")
    func effectsPerRegion() {
        let scene = Self.scene
        let subject = scene.region(inside: true, margin: 3)
        let background = scene.region(inside: false, margin: 4)
        #expect(subject.count > 1000 && background.count > 4000)
        let photo = scene.photo
        for effect in DepthEffect.allCases where effect != .mask {
            let out = Self.applied(effect)
            #expect(Self.worstLevels(out, photo, subject) <= 1, "\(effect): subject moved \(Self.worstLevels(out, photo, subject)) levels")
        }

        let spotlight = Self.applied(.spotlight)
        let darkened = Image(width: photo.width, height: photo.height, planes: photo.planes.map {
            Plane(width: $0.width, height: $0.height, pixels: $0.pixels.map { $0 * 0.25 }) })
        #expect(Self.worstLevels(spotlight, darkened, background) <= 1, "spotlight: background not × 0.25")

        let highlight = Self.applied(.highlight)
        let luma = photo.luma
        let gray = Image(width: photo.width, height: photo.height, planes: [luma, luma, luma])
        #expect(Self.worstLevels(highlight, gray, background) <= 1, "highlight: background not gray")

        var flat = DepthEffect.Settings()
        flat.colour = (0, 1, 0)
        let green = Self.applied(.greenscreen, settings: flat)
        let greenImage = Image(width: photo.width, height: photo.height, planes: [0, 1, 0].map {
            Plane(width: photo.width, height: photo.height, repeating: $0) })
        #expect(Self.worstLevels(green, greenImage, background) <= 1, "greenscreen: background not green")
        var withImage = DepthEffect.Settings()
        withImage.background = greenImage
        #expect(Self.worstLevels(Self.applied(.greenscreen, settings: withImage), greenImage, background) <= 1)

        // Comic: the background's samples are on the 5-level grid or inked black, and some are inked.
        let comic = Self.applied(.comic)
        var offGrid = 0, inked = 0
        for c in 0..<3 {
            for i in background {
                let v = comic.planes[c].pixels[i]
                if abs(v * 4 - (v * 4).rounded()) > 1e-4 { offGrid += 1 }
                if v == 0 { inked += 1 }
            }
        }
        #expect(offGrid == 0, "comic: \(offGrid) background samples off the posterised grid")
        #expect(inked > 0, "comic: no ink in a striped background")

        let mask = Self.applied(.mask)
        #expect(mask.channels == 1)
        #expect(subject.allSatisfy { mask.planes[0].pixels[$0] == 1 } && background.allSatisfy { mask.planes[0].pixels[$0] == 0 })
    }

    /// Mean absolute difference between horizontal neighbours over `pixels`: the stripes' contrast.
    static func texture(_ image: Image, _ pixels: [Int]) -> Float {
        var sum: Float = 0
        for i in pixels where (i + 1) % image.width != 0 {
            for c in 0..<3 { sum += abs(image.planes[c].pixels[i + 1] - image.planes[c].pixels[i]) }
        }
        return sum / Float(3 * pixels.count)
    }

    @Test("blur smooths the background and puts no subject colour into the ring around it (no halo), unlike a plain blur")
    func blurWithoutHalo() {
        let scene = Self.scene
        var settings = DepthEffect.Settings()
        settings.blurRadius = 6
        let out = Self.applied(.blur, settings: settings)
        let background = scene.region(inside: false, margin: 4)
        let before = Self.texture(scene.photo, background), after = Self.texture(out, background)
        #expect(after < before * 0.2, "background texture \(before) → \(after)")

        // Around the subject (1…6 px out), the blurred background must keep the background's colour.
        let ring = scene.ring(distance: 6)
        // The blend keeps mask-weighted photo there, so compare with what the blend does to a plain blur.
        let aligned = Self.sceneData.aligned(to: scene.photo)
        let mask = EffectMask.band(aligned.nearness!, focus: EffectMask.autoFocus(aligned.nearness!), width: 0.1, slope: 4)
        let radius = Plane(width: scene.width, height: scene.height, repeating: 6)
        let plain = DepthOfFieldBlur.blurred(scene.photo, radius: radius,
                                             subject: Plane(width: scene.width, height: scene.height))
        let plainHalo = ring.filter { mask.pixels[$0] < 0.01 }.map { i in
            (0..<3).reduce(Float(0)) { $0 + abs(plain.planes[$1].pixels[i] - PortraitScene.backgroundColour[$1]) } / 3
        }.max() ?? 0
        let outsideMask = ring.filter { mask.pixels[$0] < 0.01 }
        #expect(outsideMask.count > 200)
        let ours = outsideMask.map { i in
            (0..<3).reduce(Float(0)) { $0 + abs(out.planes[$1].pixels[i] - PortraitScene.backgroundColour[$1]) } / 3
        }.max() ?? 1
        // Stripes of ±0.08: a window the subject leaves only a few background
        // columns of keeps up to half their amplitude; the subject's colour is
        // 0.35 away on average, so a halo is tenths.
        #expect(ours < 0.05, "our ring: \(ours) from the background colour")
        #expect(plainHalo > 0.1, "a plain blur should bleed the subject into the ring (\(plainHalo))")
    }

    @Test("the variable box mean matches a brute-force row-then-column window mean, over several column strips")
    func variableBoxMean() {
        var random = TestRandom(seed: 29)
        // Wider than two 64-column strips of the column pass.
        let w = 150, h = 17
        let plane = Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float.random(in: 0...1, using: &random) })
        let radius = Plane(width: w, height: h, pixels: (0..<(w * h)).map { _ in Float(Int.random(in: 0...5, using: &random)) })
        let fast = BoxFilter.variableMean(plane, radius: radius)
        func r(_ x: Int, _ y: Int) -> Int { Int(radius[x, y]) }
        // The row pass with each pixel's own radius, then the column pass with the radius of the pixel written.
        var rows = plane
        for y in 0..<h {
            for x in 0..<w {
                let span = max(0, x - r(x, y))...min(w - 1, x + r(x, y))
                rows.pixels[y * w + x] = span.reduce(Float(0)) { $0 + plane[$1, y] } / Float(span.count)
            }
        }
        var worst: Float = 0
        for y in 0..<h {
            for x in 0..<w {
                let span = max(0, y - r(x, y))...min(h - 1, y + r(x, y))
                let expected = span.reduce(Float(0)) { $0 + rows[x, $1] } / Float(span.count)
                worst = max(worst, abs(fast[x, y] - expected))
            }
        }
        #expect(worst < 1e-5, "worst \(worst)")
    }

    @Test("the MPF disparity image of a portrait JPEG is read, and its mask matches the subject (IoU ≥ 0.9)")
    func mpfReader() throws {
        try Self.checkReader(bytes: try Self.scene.mpfJPEG(), name: "mpf.jpg", source: .mpfDisparity)
    }

    @Test("an MPF disparity image is turned upright with the photo's EXIF orientation (6: 90° clockwise)")
    func mpfOrientation() throws {
        // EXIF: little-endian TIFF, IFD0 with one entry, Orientation (0x0112) SHORT 6.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let jpeg = HandMadeMetadata.inserting([(0xE1, Array("Exif".utf8) + [0, 0] + tiff)], intoJPEG: try Self.scene.mpfJPEG())
        let folder = try TestFiles.temporaryFolder("depth-mpf-rotated")
        defer { TestFiles.remove(folder) }
        try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/rotated.jpg"))
        let photo = try ImageFile.read(folder + "/rotated.jpg")
        #expect(photo.image.width == Self.scene.height && photo.image.height == Self.scene.width)
        let nearness = try #require(try PortraitData.read(folder + "/rotated.jpg").nearness)
        let expected = Orientation.apply(6, to: PortraitData.stretched(Self.scene.disparity()))
        #expect(nearness.width == expected.width && nearness.height == expected.height)
        let worst = zip(nearness.pixels, expected.pixels).map { abs($0 - $1) }.max() ?? 1
        // Quality-100 JPEG of a two-level map: a few levels of ringing at most.
        #expect(worst < 0.05, "worst \(worst)")
    }

    @Test("a GDepth RangeInverse map in extended XMP (two pieces) is read, near = 1, and its mask matches the subject")
    func gDepthReader() throws {
        try Self.checkReader(bytes: try Self.scene.gDepthJPEG(pieces: 2), name: "gdepth.jpg", source: .gDepth)
        // A missing piece of the extended XMP: no depth, no crash.
        var bytes = try Self.scene.gDepthJPEG(pieces: 3)
        let header = Array("http://ns.adobe.com/xmp/extension/".utf8)
        if let at = (0..<(bytes.count - header.count)).first(where: { bytes[$0..<($0 + header.count)].elementsEqual(header) }) {
            bytes[at] = UInt8(ascii: "X")
        }
        let folder = try TestFiles.temporaryFolder("gdepth-gap")
        defer { TestFiles.remove(folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/gap.jpg"))
        #expect(try PortraitData.read(folder + "/gap.jpg").isEmpty)
    }

    @Test("a side-car depth PNG is read as nearness; a plain JPEG has no depth and is skipped (nil)")
    func sideCarAndNone() throws {
        let folder = try TestFiles.temporaryFolder("depth-sidecar")
        defer { TestFiles.remove(folder) }
        let d = Self.scene.disparity()
        try ImageFile.write(Image(width: d.width, height: d.height, planes: [d]), to: folder + "/depth.png")
        try Data(try Self.scene.plainJPEG()).write(to: URL(fileURLWithPath: folder + "/plain.jpg"))
        var options = EffectOptions()
        options.effect = .mask
        let outcome = try #require(try PortraitEffect.apply(to: folder + "/plain.jpg", depthMap: FilePath(folder + "/depth.png"), options: options))
        #expect(outcome.maskSource == PortraitData.Source.sideCar.rawValue)
        #expect(Self.scene.intersectionOverUnion(outcome.image.planes[0]) >= 0.9)
        #expect(try PortraitEffect.apply(to: folder + "/plain.jpg", options: options) == nil)
        options.matte = .hair
        #expect(try PortraitEffect.apply(to: folder + "/plain.jpg", depthMap: FilePath(folder + "/depth.png"), options: options) == nil)
    }

    @Test("HEIF auxiliary images: mattes found by URN, a uniformZ depth map turned over (near = 1), a gain map ignored; --matte uses the matte")
    func auxiliaryImagesAndMattes() throws {
        let d = Self.scene.disparity()
        // A depth (z) map: far is high, so the subject stores the low value.
        let z = Plane(width: d.width, height: d.height, pixels: d.pixels.map { 1 - $0 })
        let matte = Plane(width: d.width, height: d.height, pixels: d.pixels.map { $0 > 0.5 ? 1 : 0 })
        let images = [
            AuxiliaryImage(kind: .depth, plane: z, bitDepth: 8, depth: .init(mapping: .uniformZ, zNear: 1, zFar: 4)),
            AuxiliaryImage(kind: .auxiliary(type: "urn:com:apple:photo:2020:aux:hdrgainmap"), plane: d, bitDepth: 8),
            AuxiliaryImage(kind: .auxiliary(type: "urn:com:apple:photo:2019:aux:semantichairmatte"), plane: matte, bitDepth: 8),
        ]
        let data = PortraitData.fromAuxiliaryImages(images)
        #expect(data.source == .heifDepth)
        #expect(data.mattes.keys.sorted { $0.rawValue < $1.rawValue } == [.hair])
        let nearness = try #require(data.nearness)
        #expect(nearness[nearness.width / 2, nearness.height / 2] == 1 && nearness[0, 0] == 0)
        #expect(Matte(auxiliaryType: "urn:com:apple:photo:2018:aux:portraiteffectsmatte") == .person)
        #expect(Matte(auxiliaryType: "urn:com:apple:photo:2020:aux:semanticglassesmatte") == .glasses)
        #expect(Matte(auxiliaryType: "urn:mpeg:hevc:2015:auxid:1") == nil)

        var options = EffectOptions()
        options.effect = .mask
        options.matte = .hair
        let result = try #require(PortraitEffect.apply(to: Self.scene.photo, data: data, options: options))
        #expect(result.focus == nil && result.maskSource == "matte hair")
        #expect(Self.scene.intersectionOverUnion(result.image.planes[0]) >= 0.95)
        options.matte = .teeth
        #expect(PortraitEffect.apply(to: Self.scene.photo, data: data, options: options) == nil)
    }

    static func checkReader(bytes: [UInt8], name: String, source: PortraitData.Source) throws {
        let folder = try TestFiles.temporaryFolder("depth-" + name)
        defer { TestFiles.remove(folder) }
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // The photo itself still decodes as the photo.
        let decoded = try ImageFile.read(path)
        #expect(decoded.image.width == scene.width && decoded.image.height == scene.height)
        let data = try PortraitData.read(path)
        #expect(data.source == source)
        let nearness = try #require(data.nearness)
        #expect(nearness.width == scene.width / 2 && nearness.height == scene.height / 2)
        // Near = 1: the subject's centre is nearer than the corner.
        #expect(nearness[nearness.width / 2, nearness.height / 2] > 0.9 && nearness[0, 0] < 0.1)
        var options = EffectOptions()
        options.effect = .mask
        let outcome = try #require(try PortraitEffect.apply(to: path, options: options))
        let iou = scene.intersectionOverUnion(outcome.image.planes[0])
        #expect(iou >= 0.9, "\(name): IoU \(iou)")
    }

    @Test("a real iPhone portrait HEIC: the auto-focus mask's edge lies on the photo's edges (mean gradient there ≥ 2× the photo's)")
    func realPortraitHEIC() throws {
        let path = HEIFAuxiliaryImageTests.portrait
        let data = try PortraitData.read(path)
        #expect(data.source == .heifDepth)
        // 4032 × 3024 shrunk by 8 so the debug build stays fast; the depth map is 768 × 576.
        let full = try ImageFile.read(path).image
        let photo = Image(width: full.width / 8, height: full.height / 8, planes: full.planes.map { $0.downsampled(by: 8) })
        var options = EffectOptions()
        options.effect = .mask
        let result = try #require(PortraitEffect.apply(to: photo, data: data, options: options))
        let mask = result.image.planes[0]
        let luma = photo.luma
        let w = photo.width, h = photo.height
        var gradients: [Float] = [], edge: [Float] = []
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let g = hypot(luma[x + 1, y] - luma[x - 1, y], luma[x, y + 1] - luma[x, y - 1])
                gradients.append(g)
                // A mask edge: the 0.5 level crosses between this pixel and a neighbour.
                let m = mask[x, y]
                if (m - 0.5) * (mask[x + 1, y] - 0.5) < 0 || (m - 0.5) * (mask[x, y + 1] - 0.5) < 0 { edge.append(g) }
            }
        }
        let meanAll = gradients.reduce(0, +) / Float(gradients.count)
        let meanEdge = edge.reduce(0, +) / Float(max(1, edge.count))
        #expect(edge.count > 200, "mask edge of \(edge.count) pixels")
        #expect(meanEdge >= 2 * meanAll, "gradient on the mask edge \(meanEdge), overall \(meanAll)")
        // The subject (the dog, nearest large object) is a minority of the frame, not all or nothing.
        let share = mask.pixels.filter { $0 > 0.5 }.count * 100 / mask.count
        #expect((10...60).contains(share), "mask covers \(share) %")
    }
}

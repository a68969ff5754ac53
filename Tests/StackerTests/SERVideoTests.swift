import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// SER videos written by a small generator (`HandMadeSER`), read back frame
/// by frame and stacked.
enum HandMadeSER {
    /// A SER file: the 178-byte header, `frames` (each `width × height ×
    /// channels` samples, row 0 the top), and a timestamp trailer when
    /// `timestamps`. 16-bit samples are written in the byte order the
    /// `LittleEndian` field means in practice: 0 little-endian, 1 big-endian.
    static func file(width: Int, height: Int, colourID: Int = 0, depth: Int = 8, bigEndian: Bool = false,
                     frames: [[UInt16]], frameCount: Int? = nil, timestamps: Bool = false) -> [UInt8] {
        func int32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var bytes = Array("LUCAM-RECORDER".utf8) + int32(0) + int32(colourID) + int32(bigEndian ? 1 : 0)
            + int32(width) + int32(height) + int32(depth) + int32(frameCount ?? frames.count)
        bytes += Array(repeating: UInt8(ascii: " "), count: 120) + Array(repeating: 0, count: 16)
        precondition(bytes.count == 178)
        for frame in frames {
            for v in frame {
                if depth <= 8 { bytes.append(UInt8(v)) } else if bigEndian { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] } else {
                    bytes += [UInt8(v & 0xFF), UInt8(v >> 8)]
                }
            }
        }
        if timestamps { for i in 0..<frames.count { bytes += (0..<8).map { UInt8(truncatingIfNeeded: (638_000_000_000_000_000 + i) >> (8 * $0)) } } }
        return bytes
    }
}

@Suite("SER video")
struct SERVideoTests {
    static func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("16-bit SER either byte order, with a timestamp trailer: frame k decodes exactly; Bayer IDs give the pattern")
    func frames16() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let w = 7, h = 5
        let frames: [[UInt16]] = (0..<4).map { (k: Int) -> [UInt16] in
            (0..<(w * h)).map { (i: Int) -> UInt16 in UInt16((i * 1237 + k * 7919) % 65536) }
        }
        for bigEndian in [false, true] {
            let path = folder + "/v\(bigEndian).ser"
            try Self.write(HandMadeSER.file(width: w, height: h, colourID: 9, depth: 16, bigEndian: bigEndian,
                                            frames: frames, timestamps: true), path)
            #expect(try ImageFile.frameCount(path) == 4)
            #expect(try ImageFile.readHeader(path) == (width: w, height: h, channels: 1))
            for k in 0..<4 {
                let d = try ImageFile.readFrame(k, of: path)
                #expect(d.bitDepth == 16 && d.cfa == .grbg)
                #expect(d.image.planes[0].pixels == frames[k].map { Float($0) / 65535 }, "frame \(k), big-endian \(bigEndian)")
            }
            let beyond = IOFixtures.unreadable { _ = try ImageFile.readFrame(4, of: path) }
            #expect(beyond?.path == path && beyond?.reason == "the SER file holds 4 frames (0…3), not a frame 4")
        }
        // A Bayer video stacks in colour (debayered after calibration).
        var options = StackOptions()
        options.alignment = .none
        let colour = try stack(FrameSource.frames(in: [folder + "/vtrue.ser"]), options: options)
        #expect(colour.image.channels == 3 && colour.frames.count == 4)
        // BGR (ID 101), 8-bit: planes come out R, G, B.
        let bgr = HandMadeSER.file(width: 2, height: 1, colourID: 101, frames: [[10, 20, 30, 40, 50, 60]])
        let d = try ImageFile.decode(bytes: bgr, path: "bgr.ser")
        #expect(d.image.planes.map(\.pixels) == [[30, 60], [20, 50], [10, 40]].map { $0.map { Float($0) / 255 } })
    }

    @Test("a lying or cut SER header is refused in one line naming the file, before allocating")
    func badHeaders() throws {
        let good = HandMadeSER.file(width: 8, height: 8, frames: [[UInt16](repeating: 1, count: 64)])
        let cases: [([UInt8], String)] = [
            (HandMadeSER.file(width: 8, height: 8, frames: [[UInt16](repeating: 1, count: 64)], frameCount: 2_000_000_000),
             "truncated SER data: the header says 2000000000 frames of 8×8, the file holds 1 whole frame(s)"),
            (HandMadeSER.file(width: 65536, height: 65536, frames: [], frameCount: 1_000_000),
             "truncated SER data: the header says 1000000 frames of 65536×65536, the file holds 0 whole frame(s)"),
            (HandMadeSER.file(width: 8, height: 8, colourID: 16, frames: []), "SER colour ID 16 is not supported (mono, Bayer RGGB/GRBG/GBRG/BGGR, RGB or BGR)"),
            (HandMadeSER.file(width: 0, height: 8, frames: []), "the SER header gives no usable image size (0×8)"),
            (HandMadeSER.file(width: 8, height: 8, frames: [], frameCount: 0), "the SER file holds no frames (FrameCount 0)"),
            (Array(good.prefix(100)), "truncated SER header"),
        ]
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        for (i, (bytes, reason)) in cases.enumerated() {
            let path = folder + "/bad\(i).ser"
            try Self.write(bytes, path)
            let got = IOFixtures.unreadable { _ = try ImageFile.readFrame(0, of: path) }
            #expect(got?.path == path)
            #expect(got?.reason == reason)
            #expect(IOFixtures.unreadable { _ = try ImageFile.frameCount(path) }?.reason == reason)
        }
    }

    @Test("a SER of 1,000 small frames stacks: every frame named file.ser#i, the average exact")
    func thousandFrames() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let w = 24, h = 16, n = 1000
        var rng = TestRandom(seed: 2510)
        let base = (0..<(w * h)).map { _ in 40 + rng.int(in: 0...150) }
        let frames: [[UInt16]] = (0..<n).map { (k: Int) -> [UInt16] in base.map { (v: Int) -> UInt16 in UInt16(v + (k % 7) * 5) } }
        let path = folder + "/planet.ser"
        try Self.write(HandMadeSER.file(width: w, height: h, frames: frames, timestamps: true), path)
        let sources = FrameSource.frames(in: [path])
        #expect(sources.count == n)
        var options = StackOptions()
        options.alignment = .none
        options.threads = 2
        let result = try stack(sources, options: options)
        #expect(result.frames.count == n && result.frames.allSatisfy { $0.used })
        #expect(result.frames[999].path == "\(path)#999")
        let offsetSum: Int = (0..<n).reduce(0) { (sum: Int, k: Int) -> Int in sum + (k % 7) * 5 }
        let meanOffset = Float(offsetSum) / Float(n)
        let worst = zip(result.image.planes[0].pixels, base).map { abs($0 - (Float($1) + meanOffset) / 255) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference from the frames' mean: \(worst)")
    }
}

// The decoder mode's checks for files that hold several frames: a HEIF
// burst (top-level images) and a SER video. Called from `fuzzOneInput`
// (Fuzz/FuzzHarness.swift) after the full decode of frame 0 / the primary.
// See docs/fuzzing.md.

#if canImport(Glibc)
import Glibc
#endif

/// `STACK_FUZZ_ONLY=heif` or `ser` (set by `make fuzz` for those targets):
/// the format an input must have to be run at all. Without it libFuzzer's
/// comparison tracing hands a run the other decoders' magic numbers and
/// most of its executions drift there (a first SER run: 66 of its 355
/// corpus files were SER). Nil: every input runs.
let fuzzOnlyFormat: (@Sendable ([UInt8]) -> Bool)? = {
    guard let name = getenv("STACK_FUZZ_ONLY") else { return nil }
    switch String(cString: name) {
    case "heif": return { HEIFCodec.hasMagic($0) }
    case "ser": return { SERCodec.hasMagic($0) }
    default: return nil
    }
}()

/// At most this many frames of one input are decoded (the first ones and
/// the last), so a file claiming thousands of frames costs a few decodes.
let fuzzFramesPerInput = 3

/// The frame indices checked for a file of `count` frames: the first
/// `fuzzFramesPerInput − 1` and the last.
func fuzzFrameIndices(count: Int) -> [Int] {
    guard count > 0 else { return [] }
    var indices = Array(0..<min(count, fuzzFramesPerInput - 1))
    if !indices.contains(count - 1) { indices.append(count - 1) }
    return indices
}

/// Traps unless `decoded` is a well-formed image of `width` × `height`
/// (when given) with `channels` planes (when given).
func fuzzCheckFrame(_ decoded: DecodedImage, width: Int? = nil, height: Int? = nil, channels: Int? = nil, what: String) {
    let image = decoded.image
    precondition(image.width > 0 && image.height > 0, "\(what): empty image")
    precondition(image.width * image.height <= fuzzMaxPixels, "\(what): decoded past maxPixels")
    precondition(width.map { $0 == image.width } ?? true && height.map { $0 == image.height } ?? true,
                 "\(what): \(image.width)×\(image.height), the header says \(width ?? -1)×\(height ?? -1)")
    precondition(channels.map { $0 == image.channels } ?? (image.channels == 1 || image.channels == 3),
                 "\(what): \(image.channels) channels")
    precondition([8, 16].contains(decoded.bitDepth), "\(what): bit depth \(decoded.bitDepth)")
    for plane in image.planes {
        precondition(plane.pixels.count == image.width * image.height, "\(what): plane size mismatch")
    }
}

/// A HEIF file: the header path, the frame count, and the frames it
/// promises (each decodes or is refused with a `StackerError`), and one
/// index past the end, which must be refused. Decoded frames of a burst
/// need not share one size: `frameCount` compares libheif's announced
/// sizes (`ispe`), and a grid whose own output size disagrees decodes to
/// another (the fuzzer's `Fuzz/findings/heif-burst-grid-output-16x11.heic`: announced
/// 16×16, decoded 16×11); the pipeline then refuses the frame.
func fuzzHEIFFrames(_ bytes: [UInt8]) {
    do { _ = try HEIFCodec.header(bytes, path: "fuzz") } catch is StackerError {} catch {
        preconditionFailure("HEIF header threw a non-StackerError: \(error)")
    }
    let count: Int
    do {
        count = try HEIFCodec.frameCount(bytes, path: "fuzz")
    } catch is StackerError {
        return
    } catch {
        preconditionFailure("HEIF frameCount threw a non-StackerError: \(error)")
    }
    precondition(count >= 1, "HEIF frameCount \(count)")
    guard count > 1 else { return }
    for index in fuzzFrameIndices(count: count) {
        do {
            let frame = try HEIFCodec.decode(bytes, frame: index, path: "fuzz", maxPixels: fuzzMaxPixels)
            fuzzCheckFrame(frame, channels: 3, what: "HEIF frame \(index) of \(count)")
        } catch is StackerError {
        } catch {
            preconditionFailure("HEIF frame \(index) threw a non-StackerError: \(error)")
        }
    }
    do {
        _ = try HEIFCodec.decode(bytes, frame: count, path: "fuzz", maxPixels: fuzzMaxPixels)
        preconditionFailure("HEIF frame \(count) of \(count) decoded")
    } catch is StackerError {
    } catch {
        preconditionFailure("HEIF frame past the end threw a non-StackerError: \(error)")
    }
}

/// Where the SER checks write the input, so `ImageFile.readFrame` reads it
/// through the real `pread` path (one file per process).
let fuzzSERPath = "/tmp/stack-fuzz-\(getpid()).ser"

/// A SER video: the header parse, frame 0 in memory, and the file path the
/// pipeline takes (`ImageFile.readHeader`, `frameCount`, `readFrame` with
/// one `pread` each): every promised frame checked decodes to the header's
/// size and channels, the same pixels in memory and from the file, and the
/// index past the end is refused.
func fuzzSERFrames(_ bytes: [UInt8]) {
    let header: SERCodec.Header
    do {
        header = try SERCodec.header(bytes, fileSize: bytes.count, path: "fuzz")
    } catch is StackerError {
        return
    } catch {
        preconditionFailure("SER header threw a non-StackerError: \(error)")
    }
    precondition(header.frameCount >= 1 && header.frameBytes > 0
                  && SERCodec.headerSize + header.frameCount * header.frameBytes <= bytes.count,
                  "SER header accepted frames past the end of the file")
    guard let file = fopen(fuzzSERPath, "wb") else { return }
    let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    defer { unlink(fuzzSERPath) }
    guard written == bytes.count else { return }
    do {
        let upright = try ImageFile.readHeader(fuzzSERPath)
        precondition(upright == (header.width, header.height, header.channels), "SER readHeader disagrees with the header")
        let count = try ImageFile.frameCount(fuzzSERPath)
        precondition(count == header.frameCount, "SER frameCount disagrees with the header")
        for index in fuzzFrameIndices(count: header.frameCount) {
            let start = SERCodec.headerSize + index * header.frameBytes
            let inMemory = SERCodec.decode(frame: Array(bytes[start..<(start + header.frameBytes)]), header: header)
            do {
                let fromFile = try ImageFile.readFrame(index, of: fuzzSERPath, maxPixels: fuzzMaxPixels)
                fuzzCheckFrame(fromFile, width: header.width, height: header.height, channels: header.channels,
                               what: "SER frame \(index) of \(header.frameCount)")
                precondition(fromFile.image == inMemory.image, "SER frame \(index): the file read differs from the bytes")
                precondition(fromFile.cfa == header.cfa, "SER frame \(index): CFA pattern lost")
            } catch let error as StackerError {
                // Only the pixel limit may refuse a frame the header accepted.
                precondition(header.width * header.height > fuzzMaxPixels, "SER frame \(index) refused: \(error)")
            }
        }
        do {
            _ = try ImageFile.readFrame(header.frameCount, of: fuzzSERPath, maxPixels: fuzzMaxPixels)
            preconditionFailure("SER frame \(header.frameCount) of \(header.frameCount) decoded")
        } catch is StackerError {}
    } catch let error as StackerError {
        preconditionFailure("SER file path refused what the header accepted: \(error)")
    } catch {
        preconditionFailure("SER file path threw a non-StackerError: \(error)")
    }
}

// EXIF mode of the fuzz harness: inputs starting with `SEXF`.
//
// The bytes after the tag are either a JPEG stream (they start with SOI,
// FF D8) or a bare TIFF block, which is wrapped in an APP1 `Exif\0\0`
// segment of a minimal JPEG first. Only the EXIF code and the orientation
// it feeds run here (no libtiff on the bare blocks), so the IFD parser gets
// far more executions than the decoder mode gives it. Properties:
//  - `EXIF.read` returns an orientation in 1…8, and the TIFF block it hands
//    on has its orientation reset to 1;
//  - for a wrapped block, `EXIF.read` agrees with `TIFFReader` on the block
//    itself (same orientation, same block apart from the patched value);
//  - `Orientation.apply` turns a small plane into a permutation of it with
//    the sides swapped exactly for 5…8;
//  - a JPEG stream decodes or throws a `StackerError`, and a decode reports
//    the orientation `EXIF.read` found, with the header's sides swapped for 5…8.

import Registration

/// The tag selecting this mode.
let fuzzEXIFTag: [UInt8] = Array("SEXF".utf8)

func fuzzEXIF(_ body: ArraySlice<UInt8>) {
    let input = Array(body)
    let isJPEG = input.count >= 2 && input[0] == 0xFF && input[1] == 0xD8
    let jpeg = isJPEG ? input : EXIF.insert(tiff: input, intoJPEG: fuzzBareJPEG)
    let exif = EXIF.read(jpeg: jpeg)
    precondition((1...8).contains(exif.orientation), "EXIF orientation \(exif.orientation) out of range")
    if let tiff = exif.tiff, let found = TIFFReader(tiff)?.orientation(), let entry = found {
        precondition(entry.value == 1, "orientation not reset to 1 in the carried EXIF")
    }

    if !isJPEG && jpeg != fuzzBareJPEG {
        // The block went in whole: reading it through the JPEG framing must
        // match reading it directly.
        let direct = TIFFReader(input)?.orientation()
        switch direct {
        case nil:
            precondition(exif.orientation == 1 && exif.tiff == nil, "EXIF.read accepted a block TIFFReader rejects")
        case .some(nil):
            precondition(exif.orientation == 1 && exif.tiff == input, "a block without orientation came back changed")
        case .some(.some(let entry)):
            let expected = (1...8).contains(entry.value) ? entry.value : 1
            precondition(exif.orientation == expected, "EXIF.read says \(exif.orientation), TIFFReader \(entry.value)")
            var patched = input
            entry.patch(&patched, to: 1)
            precondition(exif.tiff == patched, "the carried block differs from the patched input")
        }
    }

    fuzzOrientationPermutes(exif.orientation, width: 3 + input.count % 3, height: 2 + input.count % 2)

    guard isJPEG else { return }
    do {
        let decoded = try ImageFile.decode(bytes: jpeg, path: "fuzz", maxPixels: fuzzMaxPixels)
        precondition(decoded.orientation == exif.orientation, "decode orientation \(decoded.orientation) ≠ EXIF \(exif.orientation)")
        if let h = try? JPEGCodec.header(jpeg, path: "fuzz") {
            let swap = exif.orientation >= 5
            precondition(decoded.image.width == (swap ? h.height : h.width)
                         && decoded.image.height == (swap ? h.width : h.height), "upright size disagrees with the header")
        }
    } catch is StackerError {
    } catch {
        preconditionFailure("decode threw a non-StackerError: \(error)")
    }
}

/// `Orientation.apply` on a `width × height` plane of distinct values must
/// keep every value once and swap the sides exactly for 5…8.
func fuzzOrientationPermutes(_ orientation: Int, width: Int, height: Int) {
    let plane = Plane(width: width, height: height, pixels: (0..<(width * height)).map(Float.init))
    let turned = Orientation.apply(orientation, to: plane)
    let swap = orientation >= 5
    precondition(turned.width == (swap ? height : width) && turned.height == (swap ? width : height),
                 "orientation \(orientation) gave \(turned.width)×\(turned.height) from \(width)×\(height)")
    precondition(turned.pixels.sorted() == plane.pixels, "orientation \(orientation) lost or repeated pixels")
}

/// One frame decoded on a thread of its own while the calling thread
/// decodes the reference, which until then has the machine to itself: the
/// pipeline cannot start before the reference fixes the grid and the
/// colour form, so one core would otherwise idle for a decode (tens of ms at
/// 12 MP).
///
/// The frame is decoded in the form the run asks for; the pipeline takes
/// it if that is the form the reference settled on, and otherwise decodes
/// the file again. A failed decode is not kept either: the pipeline's own
/// decode then reports it as usual.
final class EarlyDecode: Sendable {
    /// The frame's index in the run.
    let index: Int
    private let requested: DecodedFrame.Form
    private let result = Latch<(frame: DecodedFrame?, seconds: Double)>()

    /// Starts decoding `source` (frame `index`) in `form`.
    init(index: Int, source: FrameSource, maxPixels: Int, form: DecodedFrame.Form) {
        self.index = index
        requested = form
        let result = self.result
        startWorkerThread {
            let (frame, seconds) = measure { try? DecodedFrame.load(source, maxPixels: maxPixels, form: form) }
            result.publish(.success((frame, seconds)))
        }
    }

    /// Waits for the decode; the frame if it came out in `form`, and the
    /// seconds the decode took either way.
    func take(as form: DecodedFrame.Form) -> (frame: DecodedFrame?, seconds: Double) {
        guard let (frame, seconds) = try? result.wait() else { return (nil, 0) }
        result.release()
        guard let frame else { return (nil, seconds) }
        if form == requested { return (frame, seconds) }
        switch (form, frame.pixels) {
        case (.ycbcr(let f?), .ycbcr(let image)) where requested == .ycbcr(factor: nil) && image.chromaFactor == f:
            return (frame, seconds)
        case (.bytes, .bytes):
            return (frame, seconds)
        default:
            return (nil, seconds)
        }
    }
}

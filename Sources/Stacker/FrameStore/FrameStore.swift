public import Registration
import Synchronization

/// Aligned frames kept for the robust kernels (median, mode, sigma-clip),
/// 8 or 16 bits per sample (`SampleDepth`), reduced in row strips.
///
/// **Storage.** With depth D (`max` = 2ᴰ − 1) samples are
/// `round(value · max)`, the value first clamped to 0…1 (NaN → 0); they read
/// back as `u / max`. Coverage (> 0.5 = covered) is kept as one run per
/// row and frame, its first and one-past-last x, rather than a reserved
/// sample value or a byte per pixel: a frame warped onto the reference grid
/// covers a convex region, whose rows are single runs, and 8 bytes per row
/// cost nothing beside the samples. A row covered in several runs (only a
/// degenerate homography makes one) keeps its longest run, so the other
/// samples of that row are left out, never wrongly included.
///
/// **Layout** (W = width, N = frames, C = channels, B = bytes per sample),
/// row-interleaved so the data of one row of *all* frames is contiguous and
/// a strip of rows is one contiguous range (sequential reads, even from a
/// memory-mapped file):
/// - sample (x, y, frame f, channel c) at element `((y·N + f)·C + c)·W + x`;
/// - the covered run of row y of frame f at `spans[y·N + f]` (two `Int32`
///   after the samples; zero-filled memory reads as an empty run, so a
///   frame never stored covers nothing).
/// A frame's `store` writes W-sample runs (one per row and channel), and the
/// reducer reads, for 8 or 16 neighbouring pixels, N·C short runs that sit
/// within one row block (N·W·B·C bytes, 120 KB for 20 RGB frames of
/// 1000 px at 16 bits), which stays in cache.
///
/// **Memory.** The store lives in memory when `byteCount` ≤ `memoryLimit`,
/// else in a memory-mapped temporary file in `temporaryDirectory` (see
/// `FrameStoreBuffer`: created, registered with `TemporaryFiles`, mapped,
/// and unlinked at once, so nothing is left on disk even after a crash).
/// Both hold the same bytes, so reduction is bit-identical.
///
/// **Concurrency.** `store` may be called from several threads at once for
/// *different* frame indices (each index owns a disjoint byte range); frames
/// never stored count as covering nothing. `reduce` must not run concurrently
/// with `store`. Under those rules the type is safe to share, hence
/// `@unchecked Sendable` (the raw buffer is not checkable by the compiler).
public final class FrameStore: @unchecked Sendable {
    /// Bits kept per sample.
    public enum SampleDepth: Int, Sendable {
        /// `UInt8` samples: enough for bursts of 8-bit frames (JPEG, 8-bit
        /// PNG/TIFF), at half the memory of `.sixteen`.
        case eight = 8
        /// `UInt16` samples: 16-bit inputs.
        case sixteen = 16
        /// `Float` samples, kept as they are (values outside 0…1 survive):
        /// float inputs and calibrated frames. The reduce takes the scalar
        /// per-pixel path for them.
        case float32 = 32

        /// Bytes per stored sample.
        public var bytes: Int { rawValue / 8 }
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Channels per frame (1 = gray, 3 = RGB).
    public let channels: Int
    /// Number of frame slots.
    public let frameCount: Int
    /// Bits kept per sample.
    public let depth: SampleDepth
    /// Total bytes of samples and coverage runs.
    public let byteCount: Int
    /// Where the coverage runs start (after the samples, 8-byte aligned).
    let spansOffset: Int

    let buffer: FrameStoreBuffer
    private let stored: Mutex<[Bool]>

    /// A store for `frameCount` frames of `width × height × channels`.
    ///
    /// - Parameters:
    ///   - depth: bits kept per sample (16 unless the inputs have 8).
    ///   - memoryLimit: bytes the store may take in memory; beyond it the
    ///     store is a memory-mapped temporary file.
    ///   - temporaryDirectory: where that file is created ("" = current folder).
    /// - Throws: `StackerError.invalidInput` for non-positive sizes or a size
    ///   that overflows; `StackerError.stackingFailed` / `.writeFailed` when
    ///   memory or the temporary file cannot be had.
    public init(width: Int, height: Int, channels: Int, frameCount: Int, depth: SampleDepth = .sixteen,
                memoryLimit: Int, temporaryDirectory: some FilePathConvertible) throws {
        guard width > 0, height > 0, channels > 0, frameCount > 0 else {
            throw StackerError.invalidInput(
                path: "", reason: "frame store size \(width)×\(height)×\(channels), \(frameCount) frames, must be positive")
        }
        // bytes = H·N·W·B·C, rounded up to 8, + H·N·8, checked for overflow.
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (perFrame, o2) = pixels.multipliedReportingOverflow(by: frameCount)
        let (samples, o3) = perFrame.multipliedReportingOverflow(by: depth.bytes * channels)
        let (rows, o4) = height.multipliedReportingOverflow(by: frameCount)
        let (spanBytes, o5) = rows.multipliedReportingOverflow(by: MemoryLayout<SIMD2<Int32>>.stride)
        let (total, o6) = (samples | 7).addingReportingOverflow(1 + spanBytes)
        guard !(o1 || o2 || o3 || o4 || o5 || o6), width <= Int(Int32.max) else {
            throw StackerError.invalidInput(
                path: "", reason: "frame store of \(frameCount) frames of \(width)×\(height)×\(channels) is too large")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.frameCount = frameCount
        self.depth = depth
        self.spansOffset = (samples | 7) + 1
        self.byteCount = total
        if total <= memoryLimit {
            buffer = try FrameStoreBuffer(heapBytes: total)
        } else {
            buffer = try FrameStoreBuffer(mappedBytes: total, directory: temporaryDirectory.filePath,
                                          residentBudget: Self.residentBudget(memoryLimit: memoryLimit))
        }
        stored = Mutex([Bool](repeating: false, count: frameCount))
    }

    /// How many bytes may be written into a mapped store before its pages
    /// are dropped from the process: half its memory limit, at least
    /// `FrameStoreBuffer.residentBudgetFloor`.
    static func residentBudget(memoryLimit: Int) -> Int {
        max(memoryLimit / 2, FrameStoreBuffer.residentBudgetFloor)
    }

    /// Bytes of one row of every frame (a row block of the layout).
    var rowBlockBytes: Int { frameCount * channels * width * depth.bytes }

    /// Drops the row blocks of `rows` from the process's resident pages
    /// when the store is a mapped file (they read back from the file);
    /// nothing in memory. The reduce calls it for the rows it has done.
    func dropResident(rows: Range<Int>) {
        buffer.dropResident(from: rows.lowerBound * rowBlockBytes, count: rows.count * rowBlockBytes)
    }

    /// Empties the store: every frame slot counts as never stored again,
    /// and an in-memory store's pages go back to the system at once. The
    /// pipeline calls it after the store's last reduce, so the output's
    /// buffers (R and G, 96 MB at 12 MP) reuse those pages and the peak
    /// memory holds the store or the output, not both.
    public func removeAll() {
        stored.withLock { flags in flags = [Bool](repeating: false, count: frameCount) }
        buffer.release(spansFrom: spansOffset)
    }

    /// Drops frame `index` (out of range: nothing): it covers no pixel from
    /// now on, as if never stored. For frames left out after they were
    /// stored (`--keep`).
    public func drop(frame index: Int) {
        guard index >= 0, index < frameCount else { return }
        let runs = spans
        for y in 0..<height { runs[y * frameCount + index] = SIMD2(0, 0) }
        stored.withLock { $0[index] = false }
    }

    /// Whether the store is a memory-mapped temporary file (else anonymous memory).
    public var isMemoryMapped: Bool { buffer.isMapped }

    /// The temporary file's path as shown to people (`FilePath.description`)
    /// when memory-mapped (it is unlinked as soon as it is mapped, so the
    /// path no longer exists), else `nil`.
    public var temporaryFilePath: String? { buffer.temporaryPath?.description }

    /// How many distinct frame indices have been stored.
    public var storedFrameCount: Int { stored.withLock { $0.reduce(0) { $0 + ($1 ? 1 : 0) } } }

    /// The samples as `T` (index `((y·N + f)·C + c)·W + x`); `T` must match `depth`.
    func samples<T: StoreElement>(as _: T.Type) -> UnsafeMutablePointer<T> {
        buffer.base.assumingMemoryBound(to: T.self)
    }

    /// The covered runs `(start, end)`, x in `start..<end` (index `y·N + f`).
    var spans: UnsafeMutablePointer<SIMD2<Int32>> {
        (buffer.base + spansOffset).assumingMemoryBound(to: SIMD2<Int32>.self)
    }

    /// Stores frame `index`: its channel `planes` (0…1, already warped onto
    /// the reference grid) and its `coverage` (0…1; > 0.5 = the frame has
    /// data there). Replaces whatever that index held.
    ///
    /// Callable from several threads at once for different indices.
    /// - Throws: `StackerError.invalidInput` when the index is out of range or
    ///   a plane's size or the channel count does not match the store.
    public func store(frame index: Int, planes: [Plane], coverage mask: Plane) throws {
        guard index >= 0, index < frameCount else {
            throw StackerError.invalidInput(
                path: "", reason: "frame index \(index) is outside the store's 0..<\(frameCount)")
        }
        guard planes.count == channels else {
            throw StackerError.invalidInput(
                path: "", reason: "frame \(index) has \(planes.count) channels, the store \(channels)")
        }
        for p in planes + [mask] where p.width != width || p.height != height {
            throw StackerError.invalidInput(
                path: "", reason: "frame \(index) plane is \(p.width)×\(p.height), the store \(width)×\(height)")
        }
        planes.map(\.pixels).withBaseAddresses { sources in
            mask.pixels.withUnsafeBufferPointer { m in
                writeRows(0..<height, frame: index, samples: sources, coverage: m.baseAddress!)
            }
        }
        finishFrame(index)
    }

    /// Stores frame `index` warped onto the reference grid by `frame`, a few
    /// rows at a time (no warped copy of the frame is made), with per-channel
    /// `gains` (`x′ = gain · x + offset`, see `Normalization`) applied to the
    /// warped samples. The same bytes as `store(frame:planes:coverage:)` of
    /// `Warper.warp`'s output.
    ///
    /// Callable from several threads at once for different indices.
    /// - Throws: `StackerError.invalidInput` when the index is out of range or
    ///   the frame's grid or channel count does not match the store.
    public func store(frame index: Int, warping frame: RowWarper,
                      gains: [(gain: Float, offset: Float)] = []) throws {
        try Self.check(slot: index, frameCount: frameCount, for: frame, width: width, height: height,
                       channels: channels)
        store(frame: index, warping: frame, rows: 0..<height, at: 0, gains: gains,
              band: WarpBand(width: width, channels: channels, maxRows: height))
        finishFrame(index)
    }

    /// Marks slot `index` stored. A mapped one-frame store (a frame
    /// `DeferredWarpStore` could not keep) is then complete, so its pages
    /// leave the process until the reduce reads them, and its descriptor
    /// is closed (a run may spill thousands of frames).
    private func finishFrame(_ index: Int) {
        stored.withLock { $0[index] = true }
        if frameCount == 1 {
            buffer.dropResident(from: 0, count: byteCount)
            buffer.closeDescriptor()
        }
    }

    /// Throws `StackerError.invalidInput` unless `index` is one of
    /// `frameCount` slots and `frame` warps `channels` planes onto a
    /// `width × height` grid (the checks of both stores' `store(frame:warping:)`).
    static func check(slot index: Int, frameCount: Int, for frame: RowWarper, width: Int, height: Int,
                      channels: Int) throws {
        guard index >= 0, index < frameCount else {
            throw StackerError.invalidInput(
                path: "", reason: "frame index \(index) is outside the store's 0..<\(frameCount)")
        }
        guard frame.channels == channels, frame.width == width, frame.height == height else {
            throw StackerError.invalidInput(
                path: "", reason: "frame \(index) is \(frame.width)×\(frame.height)×\(frame.channels), the store \(width)×\(height)×\(channels)")
        }
    }

    /// Warps reference rows `rows` of `frame` (checked by the caller: the
    /// store's width and channels, rows within the frame's grid) into rows
    /// `first ..< first + rows.count` of slot `index`, a band of rows at a
    /// time through `band`, with `gains` applied; the same bytes as those
    /// rows of `store(frame:warping:gains:)`. `DeferredWarpStore` fills its
    /// strips with it.
    func store(frame index: Int, warping frame: RowWarper, rows: Range<Int>, at first: Int,
               gains: [(gain: Float, offset: Float)], band: WarpBand) {
        // A translation's or two passes' covered run is known per row: no coverage plane.
        let coverage = frame.knowsCoveredColumns ? nil : band.mask
        let shift = rows.lowerBound - first
        var y = rows.lowerBound
        while y < rows.upperBound {
            let pass = y..<min(rows.upperBound, y + band.rows)
            frame.warp(rows: pass, into: band.planes, coverage: coverage)
            writeRows((pass.lowerBound - shift)..<(pass.upperBound - shift), frame: index,
                      samples: band.planes.map { UnsafePointer($0) }, coverage: band.mask, gains: gains,
                      knownRuns: { frame.coveredColumns(row: $0 + shift) })
            y = pass.upperBound
        }
    }

    /// The most a read fault on a mapped file maps beyond the faulting page
    /// (Linux's default `fault_around_bytes`).
    static let faultAroundBytes = 64 << 10

    /// Copies rows `rows` of a one-frame store `source` (the same width,
    /// channels and depth) into rows `0 ..< rows.count` of slot `index`,
    /// samples and covered runs.
    func copyRows(_ rows: Range<Int>, from source: FrameStore, into index: Int) {
        precondition(source.frameCount == 1 && source.width == width && source.channels == channels
                     && source.depth == depth, "FrameStore.copyRows: the source is not a matching one-frame store")
        let rowBytes = channels * width * depth.bytes
        for y in rows {
            let to = y - rows.lowerBound
            (buffer.base + (to * frameCount + index) * rowBytes)
                .copyMemory(from: source.buffer.base + y * rowBytes, byteCount: rowBytes)
            spans[to * frameCount + index] = source.spans[y]
        }
        // A strip's rows of one frame may be less than a page, and a read
        // fault maps the cached pages of its 64 KiB window (Linux's fault
        // around), behind the rows too: drop from a window before the page
        // holding their start, so every page read leaves the process once
        // the strips after it are copied (a page another thread still reads
        // is read back from the file).
        let page = Platform.pageSize
        let start = max(0, rows.lowerBound * rowBytes / page * page - Self.faultAroundBytes)
        source.buffer.dropResident(from: start, count: rows.upperBound * rowBytes - start)
    }

    /// Quantises rows `rows` of frame `index` into the store: `samples` (one
    /// per channel) and `coverage` each hold `rows.count × width` floats,
    /// row `rows.lowerBound` first; channel `c` is first taken to `gain ·
    /// v + offset` by `gains[c]` (`Normalization.apply`'s arithmetic, as the
    /// samples are read: the caller's buffers are left as they are; missing
    /// or `(1, 0)` gains leave a channel as it is). `knownRuns`, when it answers for a row
    /// (`RowWarper.coveredColumns`), gives that row's
    /// covered run without a scan of `coverage` (the same run: coverage is
    /// 1 exactly there).
    private func writeRows(_ rows: Range<Int>, frame index: Int, samples source: [UnsafePointer<Float>],
                           coverage mask: UnsafePointer<Float>, gains: [(gain: Float, offset: Float)] = [],
                           knownRuns: (Int) -> Range<Int>? = { _ in nil }) {
        let k = (0..<channels).map { Normalization.acting(gains, channel: $0) }
        switch depth {
        case .eight: writeRows(rows, frame: index, samples: source, coverage: mask, gains: k, knownRuns: knownRuns, as: UInt8.self)
        case .sixteen: writeRows(rows, frame: index, samples: source, coverage: mask, gains: k, knownRuns: knownRuns, as: UInt16.self)
        case .float32: writeRows(rows, frame: index, samples: source, coverage: mask, gains: k, knownRuns: knownRuns, as: Float.self)
        }
        buffer.noteWritten(rows.count * channels * width * depth.bytes)
    }

    private func writeRows<T: StoreElement>(_ rows: Range<Int>, frame index: Int, samples source: [UnsafePointer<Float>],
                                            coverage mask: UnsafePointer<Float>, gains: [(gain: Float, offset: Float)?],
                                            knownRuns: (Int) -> Range<Int>?, as _: T.Type) {
        let w = width, n = frameCount, c = channels
        let s = samples(as: T.self), runs = spans
        // A mapped file's rows are quantised here and written with `pwrite`
        // (see `FrameStoreBuffer`); in memory, straight into place.
        let row: UnsafeMutablePointer<T>? = buffer.writesByDescriptor ? .allocate(capacity: w) : nil
        defer { row?.deallocate() }
        for y in rows {
            let at = (y - rows.lowerBound) * w
            for ch in 0..<c {
                let element = ((y * n + index) * c + ch) * w
                if let row {
                    T.store(source[ch] + at, into: row, count: w, normalising: gains[ch])
                    buffer.write(row, count: w * MemoryLayout<T>.stride, at: element * MemoryLayout<T>.stride)
                } else {
                    T.store(source[ch] + at, into: s + element, count: w, normalising: gains[ch])
                }
            }
            if let known = knownRuns(y) {
                runs[y * n + index] = known.isEmpty ? SIMD2(0, 0) : SIMD2(Int32(known.lowerBound), Int32(known.upperBound))
            } else {
                runs[y * n + index] = Self.coveredRun(mask + at, count: w)
            }
        }
    }

    /// The longest run of `row[0..<count]` above 0.5, as `(start, end)`;
    /// `(0, 0)` when nothing is.
    static func coveredRun(_ row: UnsafePointer<Float>, count: Int) -> SIMD2<Int32> {
        var best = SIMD2<Int32>(0, 0)
        var x = 0
        while x < count {
            while x < count && !(row[x] > 0.5) { x += 1 }
            let start = x
            while x < count && row[x] > 0.5 { x += 1 }
            if x - start > Int(best.y - best.x) { best = SIMD2(Int32(start), Int32(x)) }
        }
        return best
    }

    /// `UInt16(round(clamp(v, 0, 1) · 65535))`, NaN → 0 (the 16-bit store's sample).
    @inline(__always)
    static func quantize(_ v: Float) -> UInt16 { UInt16.quantize(v) }

    /// The value a 16-bit stored sample reads back as.
    @inline(__always)
    static func dequantize(_ u: UInt16) -> Float { Float(u) * UInt16.scale }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Stacker
import Synchronization

/// The decode floor: decode the frames and nothing else, on `threads` threads.
///
/// `raw` calls TurboJPEG's `tjDecompress2` directly (to interleaved RGB8,
/// the same `TJFLAG_ACCURATEDCT` the library uses), loaded with `dlopen` so the
/// harness needs no C module of its own; `float` calls `ImageFile.read`, which
/// adds the conversion to planar Float32 (what the pipeline really pays).
/// Both read the file bytes inside the timed region. `frames` decodes every
/// frame of each file instead (`ImageFile.readFrame`: a SER video's frames,
/// one `pread` and the conversion each; a HEIF burst's images), counted
/// before the timed region. `libraw` instead reads each camera raw's bytes
/// and has LibRaw open and unpack them (`RawLibRaw`), the sensor data the
/// RAW codec starts from.
enum DecodeFloor {
    /// Decodes every path (or every frame of every path) once and returns
    /// the wall seconds.
    static func run(paths: [String], threads: Int, raw: Bool, frames: Bool = false, libraw: Bool = false) throws -> Double {
        let decoder = raw && !libraw ? try RawTurboJPEG() : nil
        let unpacker = libraw ? try RawLibRaw() : nil
        let work: [(path: String, frame: Int?)] = frames
            ? try paths.flatMap { p in (0..<(try ImageFile.frameCount(p))).map { (p, Optional($0)) } }
            : paths.map { ($0, nil) }
        let failures = Mutex<[String]>([])
        let next = Atomic<Int>(0)
        let start = now()
        DispatchQueue.concurrentPerform(iterations: max(1, threads)) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < work.count else { break }
                do {
                    if let frame = work[i].frame {
                        _ = try ImageFile.readFrame(frame, of: work[i].path)
                    } else if let unpacker {
                        try unpacker.unpack(path: work[i].path)
                    } else if let decoder {
                        try decoder.decode(path: work[i].path)
                    } else {
                        _ = try ImageFile.read(work[i].path)
                    }
                } catch {
                    failures.withLock { $0.append("\(work[i].path): \(error)") }
                }
            }
        }
        let seconds = now() - start
        if let f = failures.withLock({ $0.first }) { throw BenchError(f) }
        return seconds
    }
}

/// TurboJPEG 2 entry points resolved at run time.
struct RawTurboJPEG: @unchecked Sendable {
    typealias InitFn = @convention(c) () -> UnsafeMutableRawPointer?
    typealias DestroyFn = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias HeaderFn = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, UInt,
                                         UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                                         UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32
    typealias DecompressFn = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, UInt,
                                             UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32, Int32, Int32) -> Int32
    let initDecompress: InitFn
    let destroy: DestroyFn
    let header: HeaderFn
    let decompress: DecompressFn

    init() throws {
        let lib = try DynamicLibrary(["libturbojpeg.so.0", "libturbojpeg.so"])
        initDecompress = try lib.symbol("tjInitDecompress", InitFn.self)
        destroy = try lib.symbol("tjDestroy", DestroyFn.self)
        header = try lib.symbol("tjDecompressHeader3", HeaderFn.self)
        decompress = try lib.symbol("tjDecompress2", DecompressFn.self)
    }

    /// Reads and decodes one JPEG to RGB8 (one handle per call, as the library does).
    func decode(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path)") }
        let bytes = [UInt8](data)
        guard let h = initDecompress() else { throw BenchError("tjInitDecompress failed") }
        defer { _ = destroy(h) }
        var w: Int32 = 0, ht: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
        let rc0 = bytes.withUnsafeBufferPointer { header(h, $0.baseAddress, UInt($0.count), &w, &ht, &ss, &cs) }
        guard rc0 == 0, w > 0, ht > 0 else { throw BenchError("\(path): bad JPEG header") }
        var out = [UInt8](repeating: 0, count: Int(w) * Int(ht) * 3)
        let rc = bytes.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                decompress(h, b.baseAddress, UInt(b.count), o.baseAddress, w, 0, ht, 0 /* TJPF_RGB */, 4096 /* ACCURATEDCT */)
            }
        }
        guard rc == 0 else { throw BenchError("\(path): tjDecompress2 failed") }
    }

    /// The chroma subsampling code of a JPEG (TJSAMP_444 = 0, 422 = 1, 420 = 2).
    func subsampling(path: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: path), let h = initDecompress() else { return nil }
        defer { _ = destroy(h) }
        let bytes = [UInt8](data)
        var w: Int32 = 0, ht: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer { header(h, $0.baseAddress, UInt($0.count), &w, &ht, &ss, &cs) }
        return rc == 0 ? Int(ss) : nil
    }
}

/// LibRaw's thread-safe build (`libraw_r.so.20`, the one the RAW codec
/// loads) resolved at run time: open a file's bytes and unpack its sensor
/// data, nothing more (no black subtraction, scaling or demosaic).
struct RawLibRaw: @unchecked Sendable {
    typealias InitFn = @convention(c) (UInt32) -> UnsafeMutableRawPointer?
    typealias OpenBufferFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int32
    typealias UnpackFn = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias CloseFn = @convention(c) (UnsafeMutableRawPointer?) -> Void
    let initialise: InitFn
    let openBuffer: OpenBufferFn
    let unpackData: UnpackFn
    let close: CloseFn

    init() throws {
        let lib = try DynamicLibrary(["libraw_r.so.20", "libraw_r.so"])
        initialise = try lib.symbol("libraw_init", InitFn.self)
        openBuffer = try lib.symbol("libraw_open_buffer", OpenBufferFn.self)
        unpackData = try lib.symbol("libraw_unpack", UnpackFn.self)
        close = try lib.symbol("libraw_close", CloseFn.self)
    }

    /// Reads one raw file and unpacks it (one handle per call, as the codec does).
    func unpack(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchError("cannot read \(path)") }
        guard let handle = initialise(0) else { throw BenchError("libraw_init failed") }
        defer { close(handle) }
        // LibRaw reads the buffer during the unpack too, so both calls run
        // while it is pinned: outside the closure Swift may free it at its last use.
        let bytes = [UInt8](data)
        let (opened, unpacked) = bytes.withUnsafeBytes { buffer -> (Int32, Int32) in
            let opened = openBuffer(handle, buffer.baseAddress, buffer.count)
            return (opened, opened == 0 ? unpackData(handle) : 0)
        }
        guard opened == 0 else { throw BenchError("\(path): libraw_open_buffer failed (\(opened))") }
        guard unpacked == 0 else { throw BenchError("\(path): libraw_unpack failed (\(unpacked))") }
    }
}

/// A shared library opened with `dlopen` (never closed: the bench keeps
/// it for the process's life), so the harness needs no C module of its own.
struct DynamicLibrary: @unchecked Sendable {
    let name: String
    let handle: UnsafeMutableRawPointer

    /// The first of `names` that loads.
    init(_ names: [String]) throws {
        guard let (name, handle) = names.lazy.compactMap({ n in dlopen(n, RTLD_NOW).map { (n, $0) } }).first else {
            throw BenchError("cannot load \(names[0])")
        }
        self.name = name
        self.handle = handle
    }

    /// The function `symbol` as the C function type `T`.
    func symbol<T>(_ symbol: String, _: T.Type) throws -> T {
        guard let p = dlsym(handle, symbol) else { throw BenchError("\(name) has no \(symbol)") }
        return unsafeBitCast(p, to: T.self)
    }
}

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
/// before the timed region.
enum DecodeFloor {
    /// Decodes every path (or every frame of every path) once and returns
    /// the wall seconds.
    static func run(paths: [String], threads: Int, raw: Bool, frames: Bool = false) throws -> Double {
        let decoder = raw ? try RawTurboJPEG() : nil
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
        guard let lib = dlopen("libturbojpeg.so.0", RTLD_NOW) ?? dlopen("libturbojpeg.so", RTLD_NOW) else {
            throw BenchError("cannot load libturbojpeg.so.0")
        }
        func sym<T>(_ name: String, _: T.Type) throws -> T {
            guard let p = dlsym(lib, name) else { throw BenchError("libturbojpeg has no \(name)") }
            return unsafeBitCast(p, to: T.self)
        }
        initDecompress = try sym("tjInitDecompress", InitFn.self)
        destroy = try sym("tjDestroy", DestroyFn.self)
        header = try sym("tjDecompressHeader3", HeaderFn.self)
        decompress = try sym("tjDecompress2", DecompressFn.self)
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

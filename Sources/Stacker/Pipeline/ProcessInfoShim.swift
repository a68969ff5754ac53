#if canImport(Glibc)
import Glibc
#endif

/// Processor count without pulling in Foundation.
enum ProcessInfoShim {
    /// Online processors as `sysconf` reports them.
    static var activeProcessorCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few libm functions SceneGen uses, in one place.
enum Math {
    @inline(__always) static func sin(_ x: Double) -> Double { libmSin(x) }
    @inline(__always) static func cos(_ x: Double) -> Double { libmCos(x) }
    @inline(__always) static func log(_ x: Double) -> Double { libmLog(x) }
    @inline(__always) static func exp(_ x: Double) -> Double { libmExp(x) }
    @inline(__always) static func erf(_ x: Double) -> Double { libmErf(x) }
}

@inline(__always) private func libmSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func libmCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func libmLog(_ x: Double) -> Double { log(x) }
@inline(__always) private func libmExp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func libmErf(_ x: Double) -> Double { erf(x) }

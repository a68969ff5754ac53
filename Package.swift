// swift-tools-version: 6.0
import PackageDescription

/// stack: photo-stacking batch processor.
/// Dependencies point one way: stack → Stacker → Registration → C shims.
let package = Package(
    name: "stack",
    products: [
        .library(name: "Stacker", targets: ["Stacker"]),
        .library(name: "Registration", targets: ["Registration"]),
        .library(name: "SceneGen", targets: ["SceneGen"]),
        .executable(name: "stack", targets: ["stack"]),
        .executable(name: "make-scene", targets: ["make-scene"]),
    ],
    targets: [
        // System libraries (apt providers declared so SwiftPM can suggest the install).
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg",
                       providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CBLAS", pkgConfig: "openblas",
                       providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f",
                       providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4",
                       providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CHEIF", pkgConfig: "libheif",
                       providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2",
                       providers: [.apt(["liblcms2-dev"])]),
        // cfitsio is opened with dlopen when a FITS file is first met (see
        // its include/shim.h), so it is not linked: only its header is needed
        // (libcfitsio-dev). A C target, not a header-only module, so that the
        // function table loader.c fills has one definition.
        .target(name: "CFITSIO", path: "Sources/CFITSIO"),
        // LibRaw's thread-safe build (libraw_r) is opened with dlopen when a
        // raw file is first met (see its include/shim.h), so it is not linked
        // either (libraw-dev for the header); a C target for the same reason.
        .target(name: "CLibRaw", path: "Sources/CLibRaw"),

        // glibc malloc tuning (header only, part of libc).
        .systemLibrary(name: "CMalloc"),
        // The general warp's window sums in C vector extensions (header only).
        .systemLibrary(name: "CWarpKernels"),
        // The frame store's quantisation and 8-bit median in C vector
        // extensions (header only).
        .systemLibrary(name: "CStoreKernels"),

        .target(name: "Registration", dependencies: ["CFFTW", "CBLAS", "CWarpKernels"]),
        .target(name: "Stacker", dependencies: ["Registration", "CTurboJPEG", "CPNG", "CTIFF", "CHEIF", "CLCMS2", "CFITSIO", "CLibRaw", "CMalloc", "CStoreKernels"]),
        .executableTarget(name: "stack", dependencies: ["Stacker", "Registration"]),

        .target(name: "SceneGen", dependencies: ["Stacker"], path: "Samples/SceneGen/SceneGen"),
        .executableTarget(name: "make-scene", dependencies: ["SceneGen", "Stacker"],
                          path: "Samples/SceneGen/make-scene"),

        .executableTarget(name: "stack-bench", dependencies: ["Stacker", "Registration", "SceneGen"],
                          path: "Benchmarks/StackBench"),

        // Helpers the test targets share: the one seeded generator (over
        // SceneGen's SplitMix64), temporary folders and fixtures, generated
        // bursts, hand-made PNG and TIFF files.
        .target(name: "TestSupport", dependencies: ["SceneGen", "Stacker", "Registration"], path: "Tests/TestSupport"),
        .testTarget(name: "RegistrationTests", dependencies: ["Registration", "TestSupport"]),
        .testTarget(name: "StackerTests", dependencies: ["Stacker", "Registration", "SceneGen", "TestSupport"]),
        .testTarget(name: "StackCLITests", dependencies: ["Stacker", "SceneGen", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

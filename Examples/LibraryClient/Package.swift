// swift-tools-version: 6.0
// A client of the stack package, as a test suite would write one: it
// depends on the package by path and uses its Stacker and SceneGen libraries.
import PackageDescription

let package = Package(
    name: "LibraryClient",
    dependencies: [.package(name: "stack", path: "../..")],
    targets: [
        .executableTarget(name: "LibraryClient",
                          dependencies: [.product(name: "Stacker", package: "stack"),
                                         .product(name: "SceneGen", package: "stack")]),
    ]
)

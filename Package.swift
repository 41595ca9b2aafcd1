// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Sybil",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SybilCore", targets: ["SybilCore"]),
        .library(name: "SybilWire", targets: ["SybilWire"]),
        .library(name: "SybilStore", targets: ["SybilStore"]),
        .executable(name: "sybil", targets: ["sybil"]),
        .executable(name: "sybil-bench", targets: ["sybil-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "SybilCore"),
        .target(name: "SybilWire", dependencies: ["SybilCore"]),
        .target(name: "SybilStore", dependencies: ["SybilCore", "CSQLite"]),
        .target(name: "SybilTesting", dependencies: ["SybilCore"]),
        .target(name: "SybilCLI", dependencies: ["SybilCore", "SybilWire"]),
        .executableTarget(name: "sybil", dependencies: ["SybilCLI"]),
        .executableTarget(name: "sybil-bench", dependencies: ["SybilCore", "SybilWire"]),
        .testTarget(name: "SybilCoreTests", dependencies: ["SybilCore", "SybilTesting"]),
        .testTarget(name: "SybilWireTests", dependencies: ["SybilWire", "SybilTesting"]),
        .testTarget(name: "SybilStoreTests", dependencies: ["SybilStore"]),
        .testTarget(name: "SybilCLITests", dependencies: ["SybilCLI", "SybilWire"]),
    ],
    swiftLanguageModes: [.v6]
)

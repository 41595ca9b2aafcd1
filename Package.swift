// swift-tools-version:6.0
import PackageDescription

/// Where URLSession is the HTTP and WebSocket client.
let applePlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "Sybil",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SybilCore", targets: ["SybilCore"]),
        .library(name: "SybilWire", targets: ["SybilWire"]),
        .library(name: "SybilHTTP", targets: ["SybilHTTP"]),
        .library(name: "SybilURLSession", targets: ["SybilURLSession"]),
        .library(name: "SybilTimeline", targets: ["SybilTimeline"]),
        .library(name: "SybilClient", targets: ["SybilClient"]),
        .library(name: "SybilNet", targets: ["SybilNet"]),
        .library(name: "SybilStore", targets: ["SybilStore"]),
        .library(name: "SybilMarkdown", targets: ["SybilMarkdown"]),
        .library(name: "SybilMotion", targets: ["SybilMotion"]),
        .library(name: "SybilTUI", targets: ["SybilTUI"]),
        .executable(name: "sybil", targets: ["sybil"]),
        .executable(name: "sybil-bench", targets: ["sybil-bench"]),
        .executable(name: "sybil-chaos", targets: ["sybil-chaos"]),
        .executable(name: "sybil-fuzz", targets: ["sybil-fuzz"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // libheif is loaded on first use (dlopen), so CHEIF has no pkgConfig (which would link it).
        .systemLibrary(name: "CHEIF", path: "Sources/CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // libsecret is loaded on first use (dlopen), so CSecret has no pkgConfig (which would link it).
        .systemLibrary(name: "CSecret", path: "Sources/CSecret", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(
            name: "CCMarkGFM", path: "Sources/CCMarkGFM", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"]), .brew(["cmark-gfm"])]),
        .target(name: "CSybilSanitizer", exclude: ["README.md"]),
        .target(name: "SybilCore", dependencies: ["CSybilSanitizer"], exclude: ["README.md"]),
        .target(
            name: "SybilImaging",
            dependencies: [
                .target(name: "CPNG", condition: .when(platforms: [.linux])),
                .target(name: "CJPEG", condition: .when(platforms: [.linux])),
                .target(name: "CHEIF", condition: .when(platforms: [.linux])),
            ],
            exclude: ["README.md"]),
        .target(name: "SybilWire", dependencies: ["SybilCore"], exclude: ["README.md"]),
        .target(
            name: "SybilHTTP",
            dependencies: [
                "SybilCore",
                .target(name: "CEpoll", condition: .when(platforms: [.linux])),
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ],
            exclude: ["README.md"]),
        // URLSession behind SybilHTTP's seams: the client on Apple platforms; on Linux only a
        // benchmarks' and tests' baseline, so that the apps do not load FoundationNetworking.
        .target(name: "SybilURLSession", dependencies: ["SybilCore", "SybilHTTP"], exclude: ["README.md"]),
        .target(name: "SybilTimeline", dependencies: ["SybilCore", "SybilWire"], exclude: ["README.md"]),
        .target(
            name: "SybilClient",
            dependencies: [
                "SybilCore", "SybilWire", "SybilTimeline", "SybilStore", "SybilImaging", "SybilHTTP", "SybilNet",
                .target(name: "SybilURLSession", condition: .when(platforms: applePlatforms)),
            ],
            exclude: ["README.md"]),
        .target(
            name: "SybilNet",
            dependencies: [
                "SybilCore", "SybilWire", "SybilHTTP",
                .target(name: "SybilURLSession", condition: .when(platforms: applePlatforms)),
            ],
            exclude: ["README.md"]),
        .target(
            name: "SybilServer",
            dependencies: ["SybilCore", "SybilWire", "SybilHTTP", "SybilNet", "SybilStore"],
            exclude: ["README.md"]),
        .target(
            name: "SybilStore",
            dependencies: [
                "SybilCore", "SybilWire", "CSQLite", .target(name: "CSecret", condition: .when(platforms: [.linux])),
            ],
            exclude: ["README.md"]),
        .target(name: "SybilTesting", dependencies: ["SybilCore"], exclude: ["README.md"]),
        .target(name: "SybilMarkdown", dependencies: ["SybilCore", "CCMarkGFM"], exclude: ["README.md"]),
        .target(name: "SybilMotion", dependencies: ["SybilCore"], exclude: ["README.md"]),
        // The terminal's input bytes decoded, apart from the app so the fuzz build needs nothing else.
        .target(name: "SybilTerminalInput", exclude: ["README.md"]),
        .target(
            name: "SybilTUI",
            dependencies: [
                "SybilCore", "SybilWire", "SybilTimeline", "SybilClient", "SybilMarkdown", "SybilMotion",
                "SybilTerminalInput",
                .target(name: "CEpoll", condition: .when(platforms: [.linux])),
            ],
            exclude: ["README.md"]),
        .target(
            name: "SybilCLI",
            dependencies: [
                "SybilCore", "SybilWire", "SybilTimeline", "SybilHTTP", "SybilNet", "SybilStore", "SybilServer",
                "SybilClient", "SybilMarkdown", "SybilMotion", "SybilTUI",
            ],
            exclude: ["README.md"]),
        .executableTarget(
            name: "sybil", dependencies: ["SybilCLI"], exclude: ["README.md"],
            // A release `sybil` on Linux carries the Swift runtime and Foundation inside it: it
            // runs without the toolchain's libraries, skips relocating 20-odd of them at every
            // start, and keeps only the pages it uses (idle app 33 → 27 MiB resident).
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]),
        .executableTarget(
            name: "sybil-bench",
            dependencies: [
                "SybilCore", "SybilWire", "SybilTimeline", "SybilStore", "SybilClient", "SybilHTTP", "SybilNet",
                "SybilURLSession", "SybilServer", "SybilTesting", "SybilMarkdown", "CCMarkGFM", "SybilTUI", "SybilCLI",
            ],
            exclude: ["README.md"]),
        .target(
            name: "SybilChaos",
            dependencies: [
                "SybilCore", "SybilWire", "SybilTimeline", "SybilStore", "SybilHTTP", "SybilNet", "SybilClient",
            ],
            exclude: ["README.md"]),
        .executableTarget(name: "sybil-chaos", dependencies: ["SybilChaos"], exclude: ["README.md"]),
        .testTarget(name: "SybilChaosTests", dependencies: ["SybilChaos", "SybilStore", "SybilTesting"]),
        // Fuzzing: the targets as a library, a driver that replays the corpus (or, built by
        // scripts/fuzz with -DLIBFUZZER, runs libFuzzer), and the corpus replay in the tests.
        .target(
            name: "SybilFuzzTargets", dependencies: ["SybilCore", "SybilWire", "SybilHTTP", "SybilTerminalInput"],
            exclude: ["README.md"]),
        .executableTarget(name: "sybil-fuzz", dependencies: ["SybilFuzzTargets"], exclude: ["README.md"]),
        .testTarget(name: "SybilCoreTests", dependencies: ["SybilCore", "SybilTesting"]),
        .testTarget(name: "SybilWireTests", dependencies: ["SybilWire", "SybilTesting"]),
        .testTarget(
            name: "SybilHTTPTests", dependencies: ["SybilHTTP", "SybilURLSession", "SybilWire", "SybilTesting"],
            exclude: ["Peers"]),
        .testTarget(name: "SybilTimelineTests", dependencies: ["SybilTimeline", "SybilTesting"]),
        .testTarget(
            name: "SybilClientTests",
            dependencies: ["SybilClient", "SybilHTTP", "SybilNet", "SybilTesting", "SybilImaging"]),
        .testTarget(name: "SybilImagingTests", dependencies: ["SybilImaging"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "SybilNetTests", dependencies: ["SybilNet", "SybilHTTP", "SybilStore", "SybilTesting"]),
        .testTarget(
            name: "SybilServerTests", dependencies: ["SybilServer", "SybilHTTP", "SybilNet", "SybilTesting"],
            exclude: ["Peers"]),
        .testTarget(name: "SybilStoreTests", dependencies: ["SybilStore", "SybilWire"]),
        .testTarget(name: "SybilMarkdownTests", dependencies: ["SybilMarkdown", "SybilCore"]),
        .testTarget(name: "SybilMotionTests", dependencies: ["SybilMotion", "SybilCore"]),
        .testTarget(
            name: "SybilTUITests",
            dependencies: [
                "SybilTUI", "SybilTesting", "SybilNet", "SybilStore", "SybilWire", "SybilClient", "SybilTimeline",
                "SybilCore", "SybilTerminalInput",
            ]),
        .testTarget(
            name: "SybilEndToEndTests",
            dependencies: [
                "SybilClient", "SybilServer", "SybilHTTP", "SybilNet", "SybilWire", "SybilStore", "SybilTimeline",
                "SybilCore", "SybilTesting",
            ]),
        .testTarget(
            name: "SybilSimulationTests",
            dependencies: [
                "SybilClient", "SybilServer", "SybilHTTP", "SybilNet", "SybilWire", "SybilStore", "SybilTimeline",
                "SybilCore", "SybilTesting",
            ]),
        .testTarget(
            name: "SybilCLITests",
            dependencies: [
                "SybilCLI", "SybilWire", "SybilHTTP", "SybilNet", "SybilServer", "SybilTesting", "SybilClient",
                "SybilStore", "SybilImaging",
            ],
            exclude: ["Golden"]),
        .testTarget(name: "SybilFuzzTargetsTests", dependencies: ["SybilFuzzTargets"]),
    ],
    swiftLanguageModes: [.v6]
)

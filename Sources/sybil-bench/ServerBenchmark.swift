import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `server`: runs scripts/bench-server (sybil serve against aiohttp under wrk, and held SSE
/// streams); it needs a checkout, Python and apt-get, so it runs only when asked for by name.
func benchmarkServer() {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/bench-server")
    let process = Process()
    process.executableURL = script
    do {
        try process.run()
        process.waitUntilExit()
    } catch {
        caseFailed("server: cannot run \(script.path): \(error)")
    }
}

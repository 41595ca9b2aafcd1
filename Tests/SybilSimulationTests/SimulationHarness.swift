import Foundation
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilTesting

/// What every seeded simulation shares: the seed's random source, the reference server (its
/// clock manual) behind a ``SimulatedNetwork`` that meets 30 % of the requests with a fault,
/// the step loop, and the report of a broken invariant (the seed, the step, the steps taken,
/// what the network did and the line that replays the seed).
@MainActor
final class SimulationHarness {
    /// A broken invariant.
    struct Violation: Error, CustomStringConvertible {
        let seed: UInt64
        let step: Int
        let message: String
        let trail: [String]
        let network: [String]
        let wording: Wording

        var description: String {
            "\(wording.seed) \(seed), step \(step): \(message)\n  steps: \(trail.joined(separator: "; "))\n"
                + "  \(wording.network): \(network.joined(separator: "; "))\n"
                + "  reproduce: SYBIL_SIM_SEED=\(seed) swift test --filter \(wording.filter)"
        }
    }

    /// How a simulation's report names things.
    struct Wording: Sendable {
        /// What names the seed ("chat seed").
        let seed: String
        /// What heads the network's trace ("requests").
        let network: String
        /// The `swift test --filter` that replays one seed.
        let filter: String
    }

    /// The token the server takes and the phone presents.
    nonisolated static let token = "sim-token"

    let seed: UInt64
    /// Steps before the settle period.
    let steps: Int
    /// Every choice the driver makes.
    let random: SeededRandomSource
    /// The reference server's app.
    let server: SybilServerApp
    /// The network between the phone and `server`.
    let network: SimulatedNetwork
    private let wording: Wording
    /// The step under way (`steps + 1` in the settle period).
    private(set) var step = 0
    /// What the driver did, in order.
    private(set) var trail: [String] = []

    /// A harness for `seed`; only `heldRoutes` are ever held, and `signal` fires when the
    /// network holds a request or its client gives up on one.
    init(
        seed: UInt64, steps: Int, wording: Wording, heldRoutes: Set<String> = [],
        signal: GenerationSignal = GenerationSignal()
    ) throws {
        self.seed = seed
        self.steps = steps
        self.wording = wording
        random = SeededRandomSource(seed: seed)
        let serverClock = ManualClock()
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        options.seed = seed
        server = try SybilServerApp(
            options: options,
            time: ServerTime(clock: serverClock) {
                1_800_000_000_000 + Int64(serverClock.now.offset.components.seconds) * 1000
            })
        network = SimulatedNetwork(
            app: server, seed: seed, faultPercent: 30, heldRoutes: heldRoutes, signal: signal)
    }

    /// Notes what the driver does next, for the report.
    func note(_ action: String) {
        trail.append(action)
    }

    /// Launches the phone, takes every step (each followed by the safety check, each marked in
    /// the network's trace), then the settle period, with the faults off; throws the first
    /// violation.
    func run(
        launch: () async throws -> Void, step takeStep: () async throws -> Void,
        check checkSafety: () async throws -> Void, settle: () async throws -> Void
    ) async throws {
        try await launch()
        for index in 1...steps {
            step = index
            network.note("[\(index)]")
            try await takeStep()
            try await checkSafety()
        }
        step = steps + 1
        trail.append("settle")
        network.setFaults(false)
        try await settle()
    }

    /// A fresh folder for this seed's files, named after `simulation`.
    func makeFolder(_ simulation: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("sybil-sim-\(simulation)-\(seed)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Fills in what every simulation counts: its steps, its requests and their faults.
    func count<Summary: SimulationSummary>(into summary: inout Summary) {
        summary.steps = steps
        summary.requests = network.requestCount
        summary.faults = network.counts
    }

    /// The report of a broken invariant, at the step under way.
    func violation(_ message: String) -> Violation {
        Violation(seed: seed, step: step, message: message, trail: trail, network: network.trace, wording: wording)
    }

    /// The phone's tokens: `token`, renewed as the same (the simulated 401 came from a proxy).
    static func tokens() -> TokenProvider {
        TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["sim": token]), account: "sim"),
            refresher: SameTokenRefresher())
    }
}

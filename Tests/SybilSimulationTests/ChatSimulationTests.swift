import Testing

/// Chats with resumable streams under a seeded faulty network and relaunches (issue 16): every
/// seed must keep every question saved once and in order, every complete reply exactly the
/// agent's (a resumed stream doubles and loses nothing), no reply left typing or streaming,
/// and the last question answered once the faults stop.
@MainActor
@Suite("Chat simulation", .timeLimit(.minutes(3)))
struct ChatSimulationTests {
    @Test func everySeedKeepsTheInvariants() async {
        let sweep = await SimulationSweep(defaultCount: 60) { try await ChatSimulation(seed: $0).run() }
        print(sweep.report("chat simulation"))
        for failure in sweep.failures { Issue.record(Comment(rawValue: failure)) }
    }
}

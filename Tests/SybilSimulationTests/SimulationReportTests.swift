import Testing

/// What a simulation run reports: a broken invariant names its seed, step, steps taken, what
/// the network did and the line that replays the seed; the sweep keeps the first five
/// failures and sums what the other seeds did.
@MainActor
@Suite("Simulation reports")
struct SimulationReportTests {
    private struct Broken: Error, CustomStringConvertible {
        let seed: UInt64
        var description: String { "seed \(seed) broke" }
    }

    @Test func aBrokenInvariantNamesItsSeedAndHowToReplayIt() throws {
        let harness = try SimulationHarness(
            seed: 7, steps: 2, wording: .init(seed: "chat seed", network: "requests", filter: "ChatSimulationTests"))
        harness.note("ask 1")
        harness.note("relaunch")
        harness.network.note("[1]")
        #expect(
            harness.violation("a reply was lost").description
                == "chat seed 7, step 0: a reply was lost\n  steps: ask 1; relaunch\n  requests: [1]\n"
                + "  reproduce: SYBIL_SIM_SEED=7 swift test --filter ChatSimulationTests")
    }

    @Test func theSweepStopsAtTheFifthFailureAndSumsTheSeedsThatPassed() async {
        var ran: [UInt64] = []
        let sweep = await SimulationSweep(defaultCount: 12, environment: [:]) { seed in
            ran.append(seed)
            if seed.isMultiple(of: 2) { throw Broken(seed: seed) }
            var summary = WorkspaceSimulation.Summary()
            summary.steps = 2
            summary.sends = Int(seed)
            summary.requests = 3
            summary.faults = [.none: 2, .dropped: 1]
            return summary
        }
        #expect(ran == Array(1...10))
        #expect(sweep.failures == ["seed 2 broke", "seed 4 broke", "seed 6 broke", "seed 8 broke", "seed 10 broke"])
        #expect(
            sweep.report("workspace simulation")
                == "workspace simulation: 12 seeds (1…12), 10 steps, 25 sends, 0 relaunches, 15 requests "
                + "(none 10, dropped 5, unavailable 0, serverError 0, unauthorized 0, lostAnswer 0, held 0, cutStream 0)"
        )
    }

    @Test func oneSeedFromTheEnvironmentIsReplayedAlone() async {
        let sweep = await SimulationSweep(defaultCount: 12, environment: ["SYBIL_SIM_SEED": "9"]) { _ in
            ChatSimulation.Summary()
        }
        #expect(sweep.seeds == [9])
    }
}

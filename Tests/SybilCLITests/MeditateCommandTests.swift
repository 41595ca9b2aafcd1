import Foundation
import SybilStore
import SybilTesting
import Testing

@testable import SybilCLI

/// `sybil meditate`: the timer on the terminal, and a meditation record saved on this device
/// when it ends on time or early (seed 004), on a manual clock.
@Suite("sybil meditate", .timeLimit(.minutes(2)))
struct MeditateCommandTests {
    private func io() -> (TestIO, URL) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-meditate-\(UUID().uuidString)")
        return (TestIO(environment: ["XDG_DATA_HOME": data.path, "COLUMNS": "20", "LINES": "6"]), data)
    }

    private func savedSeconds(_ data: URL) async throws -> [Int] {
        let store = try await RecordStore.open(path: RecordsCommand.storePath(["XDG_DATA_HOME": data.path]))
        return try await store.records(limit: 10).compactMap {
            if case .meditation(let seconds) = $0.record.payload { seconds } else { nil }
        }
    }

    @Test(arguments: [["meditate", "--help"], ["meditate", "--minutes", "3", "-h"]])
    func helpIsPrintedVerbatim(arguments: [String]) async throws {
        let test = TestIO()
        #expect(await test.run(arguments) == 0)
        #expect(test.stdout == (try golden("meditate-help.txt")))
    }

    @Test func topLevelHelpListsMeditate() async throws {
        let test = TestIO()
        #expect(await test.run("--help") == 0)
        #expect(test.stdout.contains("  meditate [--minutes N]  Meditate with a calm timer"))
    }

    @Test(
        arguments: [
            (["--minutes", "0"], "--minutes needs a whole number from 1 to 180, got '0'"),
            (["--minutes", "181"], "--minutes needs a whole number from 1 to 180, got '181'"),
            (["now"], "takes no arguments, got 'now'"),
            (
                [],
                "standard output is not a terminal; to save a session without the timer, use `sybil records add meditation --seconds N`"
            ),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let (test, data) = io()
        #expect(await test.run(["meditate"] + arguments) == 64)
        #expect(test.stderr == "sybil meditate: \(message)\nRun 'sybil meditate --help' for usage.\n")
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }

    @Test func aSessionThatRunsItsTimeIsSavedWithThePlannedTime() async throws {
        let (test, data) = io()
        let clock = ManualClock()
        let run = Task {
            try await MeditateCommand.run(["--minutes", "1"], io: test.io, isTerminal: true, clock: clock)
        }
        await test.waitForOutput(containing: "1:00 left")
        #expect(test.stdout.hasPrefix(BreatheAnimation.enterScreen))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(60))
        #expect(try await run.value == .success)
        #expect(test.stdout.contains("meditating  done"))
        #expect(test.stdout.contains(BreatheAnimation.leaveScreen + "saved meditation 60 s  "))
        #expect(try await savedSeconds(data) == [60])
        #expect(test.stderr.hasSuffix("1 unsynced; `sybil records sync` uploads it\n"), "\(test.stderr)")
    }

    @Test func endedEarlyItIsSavedWithTheTimeSpent() async throws {
        let (test, data) = io()
        let clock = ManualClock()
        let run = Task {
            try await MeditateCommand.run(["--minutes", "1"], io: test.io, isTerminal: true, clock: clock)
        }
        #expect(await clock.waitForSleepers())
        clock.advance(by: .milliseconds(42_500))
        await test.waitForOutput(containing: "0:18 left")
        test.terminate()
        #expect(try await run.value == .success)
        #expect(test.stdout.contains("saved meditation 42 s"))
        #expect(try await savedSeconds(data) == [42])
    }

    @Test func endedWithinTheFirstSecondNothingIsSaved() async throws {
        let (test, data) = io()
        let clock = ManualClock()
        let run = Task { try await MeditateCommand.run([], io: test.io, isTerminal: true, clock: clock) }
        await test.waitForOutput(containing: "10:00 left")
        test.terminate()
        #expect(try await run.value == .success)
        #expect(test.stderr == "sybil meditate: ended before a second had passed; nothing saved\n")
        #expect(test.stdout.hasSuffix(BreatheAnimation.leaveScreen))
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }
}

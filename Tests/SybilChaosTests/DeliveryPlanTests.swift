import Foundation
import SybilStore
import Testing

@testable import SybilChaos

@Suite("Kill -9 delivery plan and driver progress", .timeLimit(.minutes(2)))
struct DeliveryPlanTests {
    @Test("message i has the text m-0000i, goes to surface i % 3, and its text names it again")
    func textsAndSurfaces() {
        let plan = DeliveryPlan(count: 1_000)
        #expect(plan.text(of: 42) == "m-00042")
        #expect(plan.surface(of: 42) == .workspace)
        #expect(plan.surface(of: 43) == .agent)
        #expect(plan.surface(of: 44) == .chats)
        for index in 0..<plan.count { #expect(plan.index(of: plan.text(of: index)) == index) }
        #expect(plan.indices(of: .agent).prefix(3) == [1, 4, 7])
        #expect(
            plan.indices(of: .workspace).count + plan.indices(of: .agent).count + plan.indices(of: .chats).count
                == 1_000)
    }

    @Test(
        "texts outside the plan name no message", arguments: ["m-01000", "m-42", "m-0004a", "x-00001", "m-000042", ""])
    func foreignTexts(_ text: String) {
        #expect(DeliveryPlan(count: 1_000).index(of: text) == nil)
    }

    @Test("progress survives a save and a load, and its marks only go up")
    func progressRoundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try DriverProgress.load(path) == DriverProgress())
        var progress = DriverProgress()
        progress.launches = 3
        progress.raise(.agent, to: 40)
        progress.raise(.agent, to: 7)
        progress.raise(.chats, to: 2)
        try progress.save(path)
        let loaded = try DriverProgress.load(path)
        #expect(loaded == progress)
        #expect(loaded.queuedThrough == [.agent: 40, .chats: 2])
    }

    @Test("unreadable progress is an error, never empty progress")
    func unreadableProgress() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AtomicFile.write(Array("launches 2\nagent forty\n".utf8), to: path)
        #expect(throws: DriverProgress.Unreadable.self) { try DriverProgress.load(path) }
    }
}

import Testing

@testable import SybilChaos

@Suite("Kill -9 delivery verdict", .timeLimit(.minutes(2)))
@MainActor
struct DeliveryCheckTests {
    let plan = DeliveryPlan(count: 12)

    func verdict(_ texts: [String], _ surface: DeliveryPlan.Surface = .agent) -> DeliveryCheck.Report {
        var report = DeliveryCheck.Report(messages: plan.count)
        DeliveryCheck.compare(texts, with: surface, plan: plan, into: &report)
        return report
    }

    @Test("every message of the surface once and in order passes; other surfaces' and foreign texts are skipped")
    func allOnceInOrder() {
        let report = verdict(["hello", "m-00001", "m-00002", "m-00004", "m-00007", "m-00010"])
        #expect(report.passed)
        #expect(report.seen["agent"] == 4)
    }

    @Test("a message seen twice is a duplicate")
    func duplicate() {
        let report = verdict(["m-00001", "m-00004", "m-00004", "m-00007", "m-00010"])
        #expect(report.duplicates == 1)
        #expect(!report.passed)
    }

    @Test("a message never seen is missing")
    func missing() {
        let report = verdict(["m-00001", "m-00007", "m-00010"])
        #expect(report.missing == 1)
        #expect(report.examples == ["agent: m-00004 missing"])
    }

    @Test("a message after a later one is out of order")
    func outOfOrder() {
        let report = verdict(["m-00001", "m-00007", "m-00004", "m-00010"])
        #expect(report.outOfOrder == 1)
        #expect(report.duplicates == 0 && report.missing == 0)
    }
}

import Testing

@testable import SybilHTTP

/// The room a producer has on one connection, as the quick check (`hasRoom`) and the wait
/// (`waitForRoom`) see it: they agree at every step.
@Suite("Output backpressure", .timeLimit(.minutes(1)))
struct OutputBackpressureTests {
    @Test func theQuickCheckAgreesWithTheWaitAcrossTheWatermarks() async {
        let marks = OutputWatermarks(high: 100, low: 40)
        let room = OutputBackpressure(marks: marks)
        #expect(room.hasRoom, "an empty backlog has room")
        #expect(room.admit(100, limit: 1_000) == .accepted)
        #expect(room.hasRoom, "at the high-water mark, not above it")
        #expect(room.admit(1, limit: 1_000) == .accepted)
        #expect(!room.hasRoom, "above the high-water mark")
        // Applied, but still at the low-water mark: producers keep waiting.
        room.update(applied: 101, unsent: 40)
        #expect(!room.hasRoom)
        let waiter = Task { await room.waitForRoom() }
        room.update(unsent: 39)
        #expect(room.hasRoom, "below the low-water mark")
        await waiter.value
        #expect(room.admit(200, limit: 1_000) == .accepted)
        #expect(!room.hasRoom)
        room.close()
        #expect(room.hasRoom, "a closed connection makes no one wait")
        await room.waitForRoom()
    }
}

import SybilTimeline
import SybilWire
import Testing

@Suite("Latest-window scheduler", .timeLimit(.minutes(2)))
struct LatestWindowSchedulerTests {
    typealias Scheduler = LatestWindowScheduler
    let chatA = WorkspaceChatKey(desktopId: "d", projectId: "p", sessionId: "a")
    let chatB = WorkspaceChatKey(desktopId: "d", projectId: "p", sessionId: "b")
    let fence = Scheduler.TimelineFence(viewport: .parentChat, displayEpoch: 0)

    private func started(_ action: Scheduler.Action) -> Scheduler.Operation? {
        if case .start(let operation) = action { return operation }
        return nil
    }

    private func running(_ target: WorkspaceChatKey) -> Scheduler {
        var scheduler = Scheduler()
        scheduler.setTarget(target)
        _ = scheduler.setRunning(true, fence)
        return scheduler
    }

    @Test func oneActiveOperationAndRequestsCoalesceIntoOnePending() throws {
        var scheduler = running(chatA)
        let first = try #require(started(scheduler.request(fence)))
        do {
            let result = scheduler.request(fence)
            #expect(result == .none)
        }
        do {
            let result = scheduler.request(fence)
            #expect(result == .none)
        }
        #expect(scheduler.hasPendingRequest)
        let (verdict, next) = scheduler.finish(first, current: fence)
        #expect(verdict == .apply)
        let second = try #require(started(next), "the coalesced requests start one load")
        #expect(second.id != first.id)
        let (_, after) = scheduler.finish(second, current: fence)
        #expect(after == .none, "nothing more was asked")
    }

    @Test func aParkedSchedulerStartsNothingUntilActivated() throws {
        var scheduler = Scheduler()
        scheduler.setTarget(chatA)
        do {
            let result = scheduler.request(fence)
            #expect(result == .none)
        }
        #expect(scheduler.hasPendingRequest)
        let operation = try #require(started(scheduler.setRunning(true, fence)))
        #expect(operation.target == chatA)
        do {
            let result = scheduler.setRunning(false, fence)
            #expect(result == .none)
        }
    }

    @Test func noTargetNoLoad() {
        var scheduler = Scheduler()
        _ = scheduler.setRunning(true, fence)
        do {
            let result = scheduler.request(fence)
            #expect(result == .none)
        }
        #expect(!scheduler.hasPendingRequest)
    }

    @Test func fencesDecideWhetherASnapshotApplies() throws {
        // Target changed.
        var scheduler = running(chatA)
        var operation = try #require(started(scheduler.request(fence)))
        scheduler.setTarget(chatB)
        do {
            let result = scheduler.finish(operation, current: fence)
            #expect(result.0 == .drop(.targetChanged))
        }
        // Same target set again: a new generation.
        scheduler = running(chatA)
        operation = try #require(started(scheduler.request(fence)))
        scheduler.setTarget(chatA)
        do {
            let result = scheduler.finish(operation, current: fence)
            #expect(result.0 == .drop(.generationChanged))
        }
        // Viewport changed.
        scheduler = running(chatA)
        operation = try #require(started(scheduler.request(fence)))
        let thread = Scheduler.TimelineFence(viewport: .subagent(threadId: "t"), displayEpoch: 0)
        do {
            let result = scheduler.finish(operation, current: thread)
            #expect(result.0 == .drop(.viewportChanged))
        }
        // Display epoch moved.
        scheduler = running(chatA)
        operation = try #require(started(scheduler.request(fence)))
        let moved = Scheduler.TimelineFence(viewport: .parentChat, displayEpoch: 1)
        do {
            let result = scheduler.finish(operation, current: moved)
            #expect(result.0 == .drop(.epochChanged))
        }
    }

    @Test func anOperationThatIsNotActiveNeverApplies() throws {
        var scheduler = running(chatA)
        let operation = try #require(started(scheduler.request(fence)))
        _ = scheduler.finish(operation, current: fence)
        let (verdict, next) = scheduler.finish(operation, current: fence)
        #expect(verdict == .drop(.notActive), "a second report of the same load")
        #expect(next == .none)
    }

    @Test func aRequestMadeDuringAFailedLoadStillRuns() throws {
        var scheduler = running(chatA)
        let operation = try #require(started(scheduler.request(fence)))
        _ = scheduler.request(fence)
        let next = try #require(started(scheduler.fail(operation, current: fence)))
        #expect(next.target == chatA)
        do {
            let result = scheduler.fail(next, current: fence)
            #expect(result == .none, "nothing pending after the retry failed")
        }
    }

    @Test func changingTheTargetDropsThePendingRequestForTheOldOne() throws {
        var scheduler = running(chatA)
        let operation = try #require(started(scheduler.request(fence)))
        _ = scheduler.request(fence)
        scheduler.setTarget(chatB)
        #expect(!scheduler.hasPendingRequest)
        let (_, next) = scheduler.finish(operation, current: fence)
        #expect(next == .none)
    }
}

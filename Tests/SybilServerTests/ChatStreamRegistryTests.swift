import SybilCore
import SybilTesting
import Testing

@testable import SybilServer

@Suite("Chat stream registry waits", .timeLimit(.minutes(2)))
struct ChatStreamRegistryTests {
    private let registry = ChatStreamRegistry(now: { .zero })

    @Test func aWaitingReaderWakesOnTheNextEventAndOnFinish() async {
        #expect(registry.open("s"))
        let woke = Counter()
        let waiter = Task { [registry] in
            await registry.wait("s", after: 0)
            woke.increment()
            await registry.wait("s", after: 1)
            woke.increment()
        }
        registry.append("s", data: "a", overLimitFrame: "{}")
        #expect(await eventually { woke.value == 1 })
        registry.finish("s")
        await waiter.value
        #expect(woke.value == 2)
    }

    @Test func aWaitWithNewsAlreadyThereReturnsAtOnce() async {
        #expect(registry.open("s"))
        registry.append("s", data: "a", overLimitFrame: "{}")
        await registry.wait("s", after: 0)
        await registry.wait("unknown", after: 0)
    }

    @Test func cancellingAWaitEndsIt() async {
        #expect(registry.open("s"))
        let waiter = Task { [registry] in await registry.wait("s", after: 0) }
        waiter.cancel()
        await waiter.value
    }

    @Test func aReaderWakesOnlyForItsOwnStream() async {
        #expect(registry.open("a"))
        #expect(registry.open("b"))
        let woke = Woken()
        let readerA = Task { [registry] in
            await registry.wait("a", after: 0)
            woke.add("a")
        }
        let readerB = Task { [registry] in
            await registry.wait("b", after: 0)
            woke.add("b")
        }
        registry.append("b", data: "x", overLimitFrame: "{}")
        #expect(await eventually { woke.ids == ["b"] })
        registry.finish("a")
        await readerA.value
        await readerB.value
        #expect(woke.ids == ["b", "a"])
    }

    @Test func theRegistryReadsTimeFromItsInjectedClock() {
        let now = Locked(Duration.zero)
        let registry = ChatStreamRegistry(limits: .init(retention: .seconds(10))) { now.withLock { $0 } }
        #expect(registry.open("s"))
        registry.finish("s")
        now.withLock { $0 = .seconds(10) }
        #expect(registry.read("s", after: 0) == .events([], finished: true))
        now.withLock { $0 = .seconds(10) + .nanoseconds(1) }
        #expect(registry.read("s", after: 0) == .expired)
    }
}

/// The stream ids whose readers woke, in order.
private final class Woken: Sendable {
    private let state = Locked<[String]>([])
    var ids: [String] { state.withLock { $0 } }
    func add(_ id: String) {
        state.withLock { $0.append(id) }
        fakesChanged.notify()
    }
}

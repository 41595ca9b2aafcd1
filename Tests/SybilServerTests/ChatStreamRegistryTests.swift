import SybilTesting
import Synchronization
import Testing

@testable import SybilServer

@Suite("Chat stream registry waits", .timeLimit(.minutes(2)))
struct ChatStreamRegistryTests {
    private let registry = ChatStreamRegistry(now: { .zero })

    @Test func aWaitingReaderWakesOnTheNextEventAndOnFinish() async {
        #expect(registry.open("s"))
        let woke = Mutex(0)
        let waiter = Task { [registry] in
            await registry.wait("s", after: 0)
            woke.withLock { $0 += 1 }
            await registry.wait("s", after: 1)
            woke.withLock { $0 += 1 }
        }
        registry.append("s", data: "a", overLimitFrame: "{}")
        #expect(await eventually { woke.withLock { $0 } == 1 })
        registry.finish("s")
        await waiter.value
        #expect(woke.withLock { $0 } == 2)
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
}

import Foundation
import SybilHTTP
import Synchronization
import Testing

/// A thread named with ``ThreadName`` is known by that name from its first instruction on,
/// whichever of it and its creator runs first.
@Suite("Thread names")
struct ThreadNameTests {
    /// The name `body`'s thread reads for itself after `setName` ran there.
    private func nameSeenInside(_ setName: @escaping @Sendable () -> Void) async -> String {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            setName()
            seen.withLock { $0 = Thread.current.name }
            done.signal()
        }
        thread.start()
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                done.wait()
                finished.resume()
            }
        }
        return seen.withLock { $0 } ?? ""
    }

    @Test func aThreadKnowsItsNameEveryTimeItIsStarted() async {
        // Foundation's setter loses the name when the new thread runs before its creator
        // stored the thread's handle; this one has nothing to wait for.
        for round in 0..<50 {
            let name = "sybil-t\(round)"
            #expect(await nameSeenInside { ThreadName.setCurrent(name) } == name)
        }
    }

    @Test func aNameIsCutToFifteenBytesAtACharacterBoundary() async {
        #expect(await nameSeenInside { ThreadName.setCurrent("123456789012345") } == "123456789012345")
        #expect(await nameSeenInside { ThreadName.setCurrent("1234567890123456") } == "123456789012345")
        // "é" is two bytes: the fifteenth byte would split it.
        #expect(await nameSeenInside { ThreadName.setCurrent("12345678901234é") } == "12345678901234")
        #expect(ThreadName.maximumBytes == 15)
    }
}

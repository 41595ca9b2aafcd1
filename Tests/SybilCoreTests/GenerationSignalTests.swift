import SybilCore
import Testing

/// The generation counter a sender and the simulations wait on: a wait for a generation that
/// has already passed returns at once (a change between the look and the wait is not missed),
/// a fire wakes every waiter of the current generation, and cancelling a wait ends it.
@Suite("Generation signal", .timeLimit(.minutes(1)))
struct GenerationSignalTests {
    @Test func aWaitForAPassedGenerationReturnsAtOnce() async {
        let signal = GenerationSignal()
        let seen = signal.generation
        signal.fire()
        #expect(signal.generation == seen + 1)
        await signal.wait(after: seen)
    }

    @Test func aFireWakesEveryWaiterOfTheGeneration() async {
        let signal = GenerationSignal()
        let seen = signal.generation
        let started = GenerationSignal()
        let waiters = (0..<3).map { _ in
            Task {
                started.fire()
                await signal.wait(after: seen)
                return signal.generation
            }
        }
        // Each waiter has begun (it may or may not be parked yet: either way the fire reaches it).
        var begun = started.generation
        while begun < 3 {
            await started.wait(after: begun)
            begun = started.generation
        }
        signal.fire()
        for waiter in waiters { #expect(await waiter.value == seen + 1) }
    }

    @Test func aCancelledWaitEndsWithoutAFire() async {
        let signal = GenerationSignal()
        let waiting = Task { await signal.wait(after: signal.generation) }
        waiting.cancel()
        await waiting.value
        #expect(signal.generation == 0, "nothing fired")
    }
}

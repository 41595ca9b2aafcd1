import SybilCore
import SybilNet
import SybilStore
import Testing

@Suite("Token chain", .timeLimit(.minutes(2)))
struct TokenProviderTests {
    /// Counts its calls and answers only when the test opens its gate, so callers can pile up
    /// behind a refresh that is still running.
    final class CountingRefresher: TokenRefresher {
        private let count = Locked(0)
        private let (gate, opener) = AsyncStream<Void>.makeStream()
        var calls: Int { count.withLock { $0 } }
        func refreshToken(expired: String?) async throws -> String {
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            for await _ in gate { break }
            return "fresh-\(number)"
        }
        /// Lets every waiting and later refresh answer.
        func open() { opener.finish() }
    }

    @Test func memoryThenCurrentThenLegacyStoresInOrder() async throws {
        let current = InMemorySecretStore()
        let legacyA = InMemorySecretStore(["old-token-v1": "from-a"])
        let legacyB = InMemorySecretStore(["auth": "from-b"])
        let provider = TokenProvider(
            current: .init(store: current, account: "session-token"),
            legacy: [.init(store: legacyA, account: "old-token-v1"), .init(store: legacyB, account: "auth")])
        #expect(try await provider.token() == "from-a", "the first legacy store wins")
        #expect(current.all == ["session-token": "from-a"], "and moves to the current store")
        #expect(legacyA.all.isEmpty)
        #expect(legacyB.all == ["auth": "from-b"], "a later store is not touched")
    }

    @Test func theSecondLegacyStoreKeepsOldInstallsSignedIn() async throws {
        let current = InMemorySecretStore()
        let provider = TokenProvider(
            current: .init(store: current, account: "session-token"),
            legacy: [
                .init(store: InMemorySecretStore(), account: "old-token-v1"),
                .init(store: InMemorySecretStore(["auth": "from-b"]), account: "auth"),
            ])
        #expect(try await provider.token() == "from-b")
        #expect(current.all == ["session-token": "from-b"])
    }

    @Test func theSessionTokenComesFirst() async throws {
        let current = InMemorySecretStore(["session-token": "stored"])
        let provider = TokenProvider(current: .init(store: current, account: "session-token"))
        try await provider.setToken("signed-in")
        try current.setSecret("changed-behind-our-back", for: "session-token")
        #expect(try await provider.token() == "signed-in")
    }

    @Test func signedOutIsNil() async throws {
        let provider = TokenProvider(current: .init(store: InMemorySecretStore(), account: "session-token"))
        #expect(try await provider.token() == nil)
        await #expect(throws: TokenError.cannotRefresh) { try await provider.refresh() }
    }

    @Test func concurrentRefreshesShareOne() async throws {
        let refresher = CountingRefresher()
        let current = InMemorySecretStore(["session-token": "expired"])
        let provider = TokenProvider(current: .init(store: current, account: "session-token"), refresher: refresher)
        // Each call has reached the provider (and found the refresh running, or started it)
        // when `startRefresh` returns, so all three are in flight before the refresher answers.
        let first = await provider.startRefresh()
        let second = await provider.startRefresh()
        let third = await provider.startRefresh()
        refresher.open()
        let tokens = try await [first.value, second.value, third.value]
        #expect(tokens == ["fresh-1", "fresh-1", "fresh-1"])
        #expect(refresher.calls == 1)
        #expect(current.all == ["session-token": "fresh-1"])
        #expect(try await provider.token() == "fresh-1")
    }

    @Test func retryBudgetHasOneChance() {
        var budget = RetryBudget()
        let first = budget.spend()
        let second = budget.spend()
        #expect(first && !second)
        #expect(budget.remaining == 0)
    }
}

extension TokenProvider {
    /// Starts `refresh()` on the provider's own executor and returns once it has suspended, so
    /// the call has been seen by the provider when this returns.
    fileprivate func startRefresh() -> Task<String, any Error> {
        Task.immediate { try await self.refresh() }
    }
}

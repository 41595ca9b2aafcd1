import SybilCore
import SybilNet
import SybilStore
import Testing

@Suite("Token chain", .timeLimit(.minutes(2)))
struct TokenProviderTests {
    final class CountingRefresher: TokenRefresher {
        private let count = Locked(0)
        var calls: Int { count.withLock { $0 } }
        func refreshToken(expired: String?) async throws -> String {
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            for _ in 0..<50 { await Task.yield() }  // let concurrent callers pile up
            return "fresh-\(number)"
        }
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
        async let first = provider.refresh()
        async let second = provider.refresh()
        async let third = provider.refresh()
        let tokens = try await [first, second, third]
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

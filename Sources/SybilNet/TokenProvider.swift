import SybilCore

/// Gets a new token when the server answered 401. Implemented by the app that signs its user
/// in (it owns the sign-in flow); `TokenProvider` calls it, single-flight. The command line
/// runs with a fixed token and has none.
public protocol TokenRefresher: Sendable {
    /// A fresh token; `expired` is the one the server refused.
    func refreshToken(expired: String?) async throws -> String
}

/// Where a token may be found: a secret store and the account name used there.
public struct TokenLocation: Sendable {
    /// The store.
    public var store: any SecretStore
    /// The account (item name) in it.
    public var account: String

    /// Creates a location.
    public init(store: any SecretStore, account: String) {
        self.store = store
        self.account = account
    }
}

/// The token chain (SPEC §5.3): the in-memory session token first, then the current secure
/// store, then two legacy stores in order, so that old installs stay signed in. A token found
/// in a legacy store moves to the current store. Refreshing is single-flight: concurrent 401s
/// share one refresh. Tokens never go to logs or plain preferences.
public actor TokenProvider {
    private let current: TokenLocation
    private let legacy: [TokenLocation]
    private let refresher: (any TokenRefresher)?
    private var sessionToken: String?
    private var refreshing: Task<String, any Error>?

    /// A provider reading `current`, then each of `legacy` in order.
    public init(current: TokenLocation, legacy: [TokenLocation] = [], refresher: (any TokenRefresher)? = nil) {
        self.current = current
        self.legacy = legacy
        self.refresher = refresher
    }

    /// The token to send, or `nil` when signed out.
    public func token() throws -> String? {
        if let sessionToken { return sessionToken }
        if let stored = try current.store.secret(for: current.account) {
            sessionToken = stored
            return stored
        }
        for location in legacy {
            guard let found = try location.store.secret(for: location.account) else { continue }
            try current.store.setSecret(found, for: current.account)
            try? location.store.removeSecret(for: location.account)
            sessionToken = found
            return found
        }
        return nil
    }

    /// Signs in: the token is kept in memory and in the current store.
    public func setToken(_ token: String) throws {
        try current.store.setSecret(token, for: current.account)
        sessionToken = token
    }

    /// Replaces a token the server refused. Callers that arrive while a refresh runs wait for
    /// that one instead of starting another.
    public func refresh() async throws -> String {
        if let refreshing { return try await refreshing.value }
        guard let refresher else { throw TokenError.cannotRefresh }
        let expired = sessionToken
        let task = Task { try await refresher.refreshToken(expired: expired) }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        try setToken(fresh)
        return fresh
    }
}

/// Why no token could be had.
public enum TokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server refused the token and nothing can refresh it.
    case cannotRefresh
    /// No token is stored: sign in first.
    case signedOut

    /// One sentence for the user.
    public var description: String {
        switch self {
        case .cannotRefresh: "The session expired and cannot be renewed here; sign in again."
        case .signedOut: "Not signed in; add a token first."
        }
    }
}

/// One retry for a send, shared by the cold-start 5xx retry and the 401 token-refresh retry
/// (SPEC §5.1), so a message is never sent a third time.
public struct RetryBudget: Sendable, Hashable {
    /// Retries left.
    public private(set) var remaining: Int

    /// A budget of `retries` (one by the spec).
    public init(retries: Int = 1) {
        remaining = retries
    }

    /// Takes a retry when one is left.
    public mutating func spend() -> Bool {
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }
}

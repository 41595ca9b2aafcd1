import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire

/// Learns what a server offers on first contact and remembers it in the client's key-value
/// store (`$XDG_DATA_HOME/sybil/preferences`), once per base URL, until a request says
/// otherwise (``forget(_:)``, ``refresh(_:)``) or the answer is older than ``maximumAge``.
///
/// The probe is the reference server's Agent room descriptor, `GET /agent/descriptor` with the
/// key: an answer that decodes strictly as a descriptor is a Sybil server; 404 or 405 (or any
/// other body) is a plain OpenAI-compatible server. A 401 or 403 (a Sybil server refusing the
/// key, or a server that refuses everything without one) is settled by the open
/// `GET /healthz`, which the reference server answers `{"status":"ok"}`. A failure to reach
/// the server (or a 5xx, 429) settles nothing and is not remembered.
public struct CapabilityDiscovery: Sendable {
    /// The server to ask, with what its requests carry.
    public struct Server: Sendable, Hashable {
        /// The base URL (a trailing `/` or `/v1` makes no difference).
        public var baseURL: URL
        /// The key sent as `Authorization: Bearer`, if any.
        public var key: String?
        /// The profile's header fields.
        public var headers: HTTPHeaders

        /// A server.
        public init(baseURL: URL, key: String? = nil, headers: HTTPHeaders = HTTPHeaders()) {
            self.baseURL = ServerAddress.normalized(baseURL)
            self.key = key
            self.headers = headers
        }
    }

    /// What ``capabilities(of:)`` found.
    public enum Outcome: Sendable, Hashable {
        /// Known from an earlier contact.
        case remembered(ServerCapabilities)
        /// Learned now (and remembered).
        case learned(ServerCapabilities)
        /// Not settled (the server could not be reached or failed): the reason.
        case unknown(String)

        /// The capabilities, when known.
        public var capabilities: ServerCapabilities? {
            switch self {
            case .remembered(let found), .learned(let found): found
            case .unknown: nil
            }
        }
    }

    /// How long a remembered answer is trusted: 7 days, in milliseconds.
    public static let maximumAge: Int64 = 7 * 24 * 60 * 60 * 1_000
    /// How long each probe request may take.
    public static let probeTimeout: Duration = .seconds(10)
    /// The most bytes of a probe's answer read.
    public static let answerLimit = 64 * 1_024
    /// The prefix of the store keys (one per base URL).
    public static let keyPrefix = "server-capabilities."

    private let http: any HTTPClient
    private let store: any KeyValueStore
    private let now: @Sendable () -> Int64

    /// Discovery through `http`, remembering in `store`; `now` gives milliseconds since 1970.
    public init(http: any HTTPClient, store: any KeyValueStore, now: @escaping @Sendable () -> Int64) {
        self.http = http
        self.store = store
        self.now = now
    }

    /// What `server` offers: remembered, else probed (and remembered when settled).
    public func capabilities(of server: Server) async -> Outcome {
        if let known = remembered(server.baseURL) { return .remembered(known) }
        return await refresh(server)
    }

    /// Probes `server` again, whatever is remembered (a request said otherwise).
    public func refresh(_ server: Server) async -> Outcome {
        switch await probe(server) {
        case .success(let found):
            remember(found, for: server.baseURL)
            return .learned(found)
        case .failure(let reason):
            return .unknown(reason.description)
        }
    }

    /// The answer remembered for `baseURL`, unless it is older than ``maximumAge``.
    public func remembered(_ baseURL: URL) -> ServerCapabilities? {
        let base = ServerAddress.normalized(baseURL)
        guard let bytes = try? store.data(forKey: Self.storageKey(for: base)),
            let value = try? JSONReader().parse(bytes), let object = try? JSONObjectReader(value, at: .root),
            let stored = try? object.string("baseURL"), stored == base.absoluteString,
            let kind = (try? object.string("kind")).flatMap(ServerCapabilities.Kind.init(rawValue:)),
            let learnedAt = try? object.integer("learnedAt")
        else { return nil }
        let age = now() - learnedAt
        guard age >= 0, age < Self.maximumAge else { return nil }
        return ServerCapabilities(kind: kind)
    }

    /// Forgets what was learned about `baseURL`; the next contact probes again.
    public func forget(_ baseURL: URL) {
        try? store.removeValue(forKey: Self.storageKey(for: ServerAddress.normalized(baseURL)))
    }

    /// The store key for `baseURL`: the prefix and the FNV-1a of its normalized form.
    public static func storageKey(for baseURL: URL) -> String {
        keyPrefix + String(FNV1a64.hash(utf8: ServerAddress.normalized(baseURL).absoluteString), radix: 16)
    }

    private func remember(_ capabilities: ServerCapabilities, for baseURL: URL) {
        let value: JSONValue = .object([
            "baseURL": .string(baseURL.absoluteString), "kind": .string(capabilities.kind.rawValue),
            "learnedAt": .number(JSONNumber(now())),
        ])
        // Not remembered is only slower: the next contact probes again.
        try? store.set(JSONWriter().bytes(from: value), forKey: Self.storageKey(for: baseURL))
    }

    private struct Unsettled: Error, CustomStringConvertible {
        var description: String
    }

    private func probe(_ server: Server) async -> Result<ServerCapabilities, Unsettled> {
        var headers = server.headers
        if let key = server.key { headers.set("Authorization", "Bearer \(key)") }
        let descriptor: (status: Int, body: [UInt8])
        do {
            descriptor = try await get("agent/descriptor", of: server, headers: headers)
        } catch {
            return .failure(error)
        }
        switch descriptor.status {
        case 200:
            let isDescriptor =
                (try? JSONReader().parse(descriptor.body)).flatMap {
                    try? AgentRoomDescriptor.decode($0, at: .root)
                } != nil
            return .success(isDescriptor ? .sybil : .openAICompatible)
        case 401, 403:
            // The open health check tells a Sybil server refusing the key from the rest.
            guard let health = try? await get("healthz", of: server, headers: server.headers) else {
                return .failure(Unsettled(description: "the server refused the key and its health check failed"))
            }
            return .success(health.status == 200 && Self.isSybilHealth(health.body) ? .sybil : .openAICompatible)
        case 429, 500...599:
            return .failure(Unsettled(description: "the server answered \(descriptor.status)"))
        default:
            return .success(.openAICompatible)
        }
    }

    private static func isSybilHealth(_ body: [UInt8]) -> Bool {
        guard let value = try? JSONReader().parse(body), let object = try? JSONObjectReader(value, at: .root) else {
            return false
        }
        return (try? object.string("status")) == "ok"
    }

    private func get(_ path: String, of server: Server, headers: HTTPHeaders) async throws(Unsettled) -> (
        status: Int, body: [UInt8]
    ) {
        let request = HTTPRequest(
            url: APIEndpoint.url(base: server.baseURL, path: path), headers: headers, timeout: Self.probeTimeout)
        do {
            let response = try await http.send(request)
            let body = (try? await response.collect(limit: Self.answerLimit)) ?? []
            return (response.head.status, body)
        } catch {
            throw Unsettled(description: "the server could not be reached: \(error)")
        }
    }
}

import SybilCore
import SybilWire

/// What the in-memory store (`--in-memory`) may hold of uploads' bytes at once: the Agent
/// room's stored originals and the bodies arriving for it, and the workspace desktop's
/// chunks, all together (``SybilServerOptions/memoryUploadBytes``). On disk the bytes are in
/// files and only the route limits apply; in memory nothing else would stop many uploads, or
/// many 1 GiB workspace files, from growing the process without bound.
///
/// Bytes are reserved as they arrive and released when an upload is refused, abandoned or
/// cancelled; a stored upload keeps its bytes until the server stops.
final class UploadMemoryBudget: Sendable {
    /// The most bytes held at once.
    let capacity: Int64
    private let used = Locked<Int64>(0)

    /// A budget of `capacity` bytes, none used.
    init(capacity: Int64) {
        self.capacity = capacity
    }

    /// The bytes held now.
    var usedBytes: Int64 { used.withLock { $0 } }

    /// Reserves `bytes`, or throws the 507 naming `param` when they do not fit.
    func reserve(_ bytes: Int64, param: String) throws(APIError) {
        let fits = used.withLock { used in
            guard bytes <= capacity - used else { return false }
            used += bytes
            return true
        }
        guard fits else {
            throw APIError(
                status: 507,
                message:
                    "The server keeps uploads in memory (--in-memory) and holds its limit of \(AgentRoomService.mebibytes(capacity)) for them; restart it with --data-dir to keep more.",
                code: "storage_full", param: param, details: ["limitBytes": .number(JSONNumber(capacity))])
        }
    }

    /// Gives back `bytes` reserved earlier.
    func release(_ bytes: Int64) {
        used.withLock { $0 = max(0, $0 - bytes) }
    }
}

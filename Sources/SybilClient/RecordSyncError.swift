import SybilCore
import SybilWire

/// Why a records sync (or one of its calls) failed. Records that were not confirmed stay
/// unsynced, so every case is safe to retry with the same ids. Messages never hold a token or
/// a record's content.
public enum RecordSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error status and (usually) an error body; `401` and `403`
    /// refuse the key (``refusedKey``).
    case rejected(status: Int, error: APIErrorBody)
    /// The request did not complete (refused, reset, timed out): the outcome is unknown, and
    /// the next sync sends the same records again (the server answers `duplicate`).
    case transport(String)
    /// The call (`POST records/batch`) did not end within its deadline, though the server may
    /// have sent something now and then: the outcome is unknown, as with ``transport(_:)``.
    case timedOut(call: String, after: Duration)
    /// The answer broke the contract; the text names the JSON path.
    case malformedAnswer(String)
    /// The server answered with a redirect, which is never followed.
    case redirectRefused(status: Int)
    /// The local record store failed.
    case storage(String)
    /// The sync stopped between steps (a test's simulated crash, or cancellation).
    case interrupted(String)

    /// The server's error for a status and body (a generic one when the body is not an error body).
    static func from(status: Int, body: [UInt8]) -> RecordSyncError {
        if (300..<400).contains(status) { return .redirectRefused(status: status) }
        let decoded = (try? JSONReader().parse(body)).flatMap { try? APIErrorBody.decode($0, at: .root) }
        return .rejected(
            status: status, error: decoded ?? APIErrorBody(message: "HTTP \(status) without an error body."))
    }

    /// Whether the server refused the key (`401`, after a renewal if one could be had, or
    /// `403`): the same key cannot succeed on a retry.
    public var refusedKey: Bool {
        guard case .rejected(let status, _) = self else { return false }
        return status == 401 || status == 403
    }

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .rejected(let status, let error) where status == 401 || status == 403:
            "The server refused the key (HTTP \(status)): \(error.message)"
        case .rejected(let status, let error): "The server refused the sync (HTTP \(status)): \(error.message)"
        case .transport(let reason): "The server could not be reached: \(reason)"
        case .timedOut(let call, let after):
            "The server did not finish answering \(call) within \(after.components.seconds) s."
        case .malformedAnswer(let reason): "The server's answer broke the records contract: \(reason)"
        case .redirectRefused(let status):
            "The server answered with a redirect (HTTP \(status)), which is not followed."
        case .storage(let reason): "The records on this device could not be read or written: \(reason)"
        case .interrupted(let reason): "The sync stopped: \(reason)"
        }
    }
}

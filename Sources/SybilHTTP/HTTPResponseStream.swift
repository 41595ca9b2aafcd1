import Synchronization

/// The writing end of a streamed response body (an event stream). Handlers write as they
/// go; once the client has left or the server is shutting down, ``isOpen`` is false and
/// writes are dropped. A producer that can fall behind a slow client awaits
/// ``waitForRoom()`` before producing more, so what waits for the client stays bounded.
/// Safe to use from any task.
public final class HTTPResponseStream: Sendable {
    private let deliver: @Sendable ([UInt8]) -> Bool
    private let room: @Sendable () async -> Void
    private let open = Atomic<Bool>(true)

    /// A stream whose body bytes go to `deliver` (the server frames them as chunks; tests
    /// collect them). `room` returns once the client's unsent backlog is small enough for more
    /// (at once when there is no backlog to wait for).
    public convenience init(
        deliver: @escaping @Sendable ([UInt8]) -> Void, room: @escaping @Sendable () async -> Void = {}
    ) {
        self.init(
            accepting: { bytes in
                deliver(bytes)
                return true
            }, room: room)
    }

    /// A stream whose `deliver` may refuse bytes (the transport, once the client stopped
    /// reading): a refusal closes the stream.
    init(accepting deliver: @escaping @Sendable ([UInt8]) -> Bool, room: @escaping @Sendable () async -> Void) {
        self.deliver = deliver
        self.room = room
    }

    /// Whether the client can still receive.
    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Returns once the client can take more (its unsent backlog is below the low-water mark)
    /// or the stream closed: `true` when more may be written, `false` once it is closed.
    public func waitForRoom() async -> Bool {
        guard isOpen else { return false }
        await room()
        return isOpen
    }

    /// Writes `bytes`; returns `false` (and drops them) once the stream is closed, or when the
    /// transport refuses them because the client has stopped reading (which closes it).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard isOpen else { return false }
        if !bytes.isEmpty, !deliver(bytes) {
            markClosed()
            return false
        }
        return true
    }

    /// Writes one event-stream event.
    @discardableResult
    public func writeEvent(data: String, type: String? = nil, id: String? = nil) -> Bool {
        write(SSEEventWriter.event(data: data, type: type, id: id))
    }

    /// Writes a heartbeat comment.
    @discardableResult
    public func writeComment(_ text: String = "keep-alive") -> Bool {
        write(SSEEventWriter.comment(text))
    }

    /// Marks the stream closed: later writes are dropped (called when the client leaves).
    public func markClosed() {
        open.store(false, ordering: .releasing)
    }
}

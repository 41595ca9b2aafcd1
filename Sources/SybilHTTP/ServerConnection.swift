/// One client connection as the event loop holds it: its descriptor, its rules
/// (``HTTPConnectionStateMachine``), the bytes waiting to be sent, the task producing a stream
/// or running a WebSocket session, and the interest registered with the poller. Owned by the
/// loop thread.
final class ServerConnection {
    /// The task answering the connection beyond a single response.
    enum Work {
        case none
        case stream(HTTPResponseStream, OutputBackpressure, Task<Void, Never>)
        case webSocket(ServerWebSocket, OutputBackpressure, Task<Void, Never>)

        /// The producer's room, when there is a producer.
        var room: OutputBackpressure? {
            switch self {
            case .none: nil
            case .stream(_, let room, _), .webSocket(_, let room, _): room
            }
        }
    }

    let id: UInt64
    let descriptor: Int32
    var machine: HTTPConnectionStateMachine
    var work = Work.none
    /// The task of the request handler answering now, until its response is posted; cancelled
    /// when the connection closes first.
    var handlerTask: Task<Void, Never>?
    var output: [UInt8] = []
    var outputOffset = 0
    /// Request bytes the machine held when last counted (``TransportStatistics``).
    var heldRequestBytes = 0
    /// Bytes were queued since the last attempt to send.
    var unflushed = false
    /// Listed in the loop's `gatheredOutput` for this turn (listed once, however many posts).
    var outputGathered = false
    /// Whether the rules want input now.
    var wantsRead = true
    /// Current interest registered with the poller.
    var watchingReadable = true
    var watchingWritable = false
    /// Watching for the peer's half-close alone (input not read while a handler runs).
    var watchingHalfClose = false
    /// The peer sent all it will (`read` returned 0, or the poller said so).
    private(set) var inputEnded = false
    /// What the handlers of this connection's requests watch for that end, made for the first
    /// request handled on a task.
    private var inputEndSignal: HTTPInputEnd?

    init(id: UInt64, descriptor: Int32, machine: HTTPConnectionStateMachine) {
        self.id = id
        self.descriptor = descriptor
        self.machine = machine
    }

    /// Bytes queued but not yet sent.
    var pendingOutput: Int { output.count - outputOffset }

    /// The end of the peer's input, as the connection's handlers see it (ended already when
    /// the peer's input ended before).
    var inputEnd: HTTPInputEnd {
        if let inputEndSignal { return inputEndSignal }
        let signal = HTTPInputEnd()
        if inputEnded { signal.end() }
        inputEndSignal = signal
        return signal
    }

    /// The peer sent all it will: waiting handlers answer now.
    func endInput() {
        inputEnded = true
        inputEndSignal?.end()
    }

    /// Queues `bytes` for sending.
    func enqueue(_ bytes: [UInt8]) {
        if outputOffset > 0, outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        if output.isEmpty {
            output = bytes
        } else {
            output.append(contentsOf: bytes)
        }
        unflushed = true
    }
}

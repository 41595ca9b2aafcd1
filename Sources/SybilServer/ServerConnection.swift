import SybilWire

/// One client connection's state, owned by the event loop thread: the request parser, the
/// requests read but not yet answered (pipelining), what is being answered, and the bytes
/// waiting to be sent.
final class ServerConnection {
    /// What the connection is doing.
    enum Phase {
        /// Between responses: the next queued request is dispatched when there is one.
        case reading
        /// A handler is working on a request.
        case handling
        /// A chunked response body is being produced by a task.
        case streaming(HTTPResponseStream, Task<Void, Never>)
        /// The connection speaks WebSocket to a session task.
        case webSocket(ServerWebSocket, Task<Void, Never>)
        /// Our side is done: after the output is flushed and our half closed, input is
        /// discarded until the peer closes or the deadline passes (so a final error response
        /// is not lost to a reset).
        case lingering(deadline: Duration)
    }

    /// A request read whole, or the reason one could not be read.
    enum Queued {
        case request(HTTPServerRequest)
        case refusal(status: Int, message: String)
        /// A body consumer refused the request with this answer.
        case refused(HTTPServerResponse)
    }

    /// The request being read: its head, and its body so far or the consumer taking it.
    struct Partial {
        var head: HTTPRequestHead
        var body: [UInt8] = []
        var consumer: (any HTTPRequestBodyConsumer)?
    }

    let id: UInt64
    let descriptor: Int32
    var parser: HTTPRequestParser
    var phase = Phase.reading
    var partial: Partial?
    var queue: [Queued] = []
    var output: [UInt8] = []
    var outputOffset = 0
    var closeAfterFlush = false
    /// The peer has closed its sending half: nothing more will arrive.
    var inputEnded = false
    /// A request was refused: whatever else arrives is read and thrown away.
    var discardInput = false
    var lastActivity: Duration
    /// When the first byte of the request being read arrived.
    var requestStarted: Duration?
    var keepAliveCurrent = true
    var isHeadRequest = false
    var webSocketDecoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
    var webSocketAssembler = WebSocketMessageAssembler(maximumMessage: 1 << 20)
    var webSocketCloseSent = false
    /// The client's close frame: the code to echo and when it arrived.
    var webSocketPeerClose: (code: UInt16, at: Duration)?
    /// Current interest registered with the poller.
    var watchingReadable = true
    var watchingWritable = false

    init(id: UInt64, descriptor: Int32, parser: HTTPRequestParser, now: Duration) {
        self.id = id
        self.descriptor = descriptor
        self.parser = parser
        self.lastActivity = now
    }

    /// Bytes queued but not yet sent.
    var pendingOutput: Int { output.count - outputOffset }

    /// Whether nothing of a request is waiting or in progress.
    var isIdle: Bool {
        guard case .reading = phase else { return false }
        return queue.isEmpty && parser.isIdle && pendingOutput == 0 && partial == nil
    }

    /// Whether the loop wants to read from the connection now.
    var wantsInput: Bool { !inputEnded && queue.count < 16 }

    /// Queues `bytes` for sending.
    func enqueue(_ bytes: [UInt8]) {
        if outputOffset > 0, outputOffset == output.count {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
        }
        output.append(contentsOf: bytes)
    }
}

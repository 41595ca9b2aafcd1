/// The parsers under fuzzing, each with an entry point that takes raw bytes: it decodes them
/// the way the product does and checks what can be checked cheaply (the same answer however
/// the bytes are split, decode → encode → decode giving the same value). A parser bug shows as
/// a crash (a trap, or an address-sanitizer report in the libFuzzer build); a broken invariant
/// as a thrown ``FuzzFailure``.
public enum FuzzTarget: String, CaseIterable, Sendable, Hashable {
    /// SybilCore's `JSONReader` and `JSONWriter`.
    case json
    /// SybilWire's workspace chat load envelope and `TimelinePageDecoder`.
    case envelope
    /// SybilWire's `EventStreamParser` (Server-Sent Events).
    case sse
    /// SybilHTTP's `HTTPRequestParser`, the server's reader of a request (its head read by the
    /// `HTTPHeadDecoder` the response parser shares).
    case http
    /// SybilHTTP's `HTTPResponseParser`, the client's reader of a server's answer (an odd first
    /// byte makes it the answer to `HEAD`).
    case httpResponse = "http-response"
    /// The client's chat response path fed by a hostile server: `HTTPResponseParser`, then
    /// `EventStreamParser` under its limits, then `OpenAIStreamEvent`, as the socket client and
    /// the chat transport chain them.
    case chatResponse = "chat-response"
    /// SybilWire's `MultipartFormDataParser` (the first line of the input is the Content-Type).
    case multipart
    /// SybilWire's `WebSocketFrameDecoder` and `WebSocketMessageAssembler` (the first byte
    /// chooses client or server frames).
    case websocket
    /// SybilTUI's `TerminalInputDecoder`.
    case terminalInput = "terminal-input"

    /// Runs one input through the target.
    public func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        switch self {
        case .json: try JSONFuzzTarget.run(bytes)
        case .envelope: try EnvelopeFuzzTarget.run(bytes)
        case .sse: try EventStreamFuzzTarget.run(bytes)
        case .http: try HTTPRequestFuzzTarget.run(bytes)
        case .httpResponse: try HTTPResponseFuzzTarget.run(bytes)
        case .chatResponse: try ChatResponseFuzzTarget.run(bytes)
        case .multipart: try MultipartFuzzTarget.run(bytes)
        case .websocket: try WebSocketFuzzTarget.run(bytes)
        case .terminalInput: try TerminalInputFuzzTarget.run(bytes)
        }
    }
}

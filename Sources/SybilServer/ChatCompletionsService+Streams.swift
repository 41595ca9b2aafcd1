import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// A scripted reply ready to stream: its tokens already cut by `max_tokens` and `stop`.
struct ScriptedStream: Sendable {
    var id: String
    var model: String
    var created: Int64
    var tokens: [String]
    var finish: ChatCompletionChunk.FinishReason
    var ending: ScriptedAgent.Ending
    /// The usage chunk to send before `[DONE]`, when the request asked for it.
    var usage: ChatCompletionUsage?
}

extension ChatCompletionsService {
    /// The longest `Last-Event-ID` / `after` read: 18 digits.
    static let maximumEventIDDigits = 18

    /// `GET /v1/chat/completions/{id}/events`: replays the events of stream `id` after
    /// `Last-Event-ID` (or `?after=`), then follows it live until it ends.
    func events(id stream: ChatStreamID, _ request: HTTPServerRequest) throws(APIError) -> HTTPServerResponse {
        let id = stream.rawValue
        let after = try Self.resumePoint(request)
        switch registry.read(id, after: after) {
        case .notFound:
            throw APIError(
                status: 404, message: "No chat stream \(Self.shown(id)) is kept on this server.",
                code: "stream_not_found")
        case .expired:
            throw APIError(
                status: 410,
                message: "The chat stream \(Self.shown(id)) is no longer kept (finished streams are kept "
                    + "\(registry.limits.retention.components.seconds) s); send the request again.",
                code: "stream_expired")
        case .beyondEnd(let newest):
            throw APIError.invalid(
                "The event id \(after) is past the newest event (\(newest)) of this stream.",
                param: request.headers["Last-Event-ID"] != nil ? "Last-Event-ID" : "after")
        case .events:
            return .eventStream { [self] stream in await follow(id, after: after, to: stream) }
        }
    }

    /// Writes the events of `id` after `after` to `stream`, each with its `id:`, then waits for
    /// more (with heartbeats) until the stream finishes or the client leaves.
    func follow(_ id: String, after: Int64, to stream: HTTPResponseStream) async {
        guard stream.writeComment() else { return }
        var last = after
        let heartbeat = options.heartbeatInterval
        let time = time
        let registry = registry
        while !Task.isCancelled {
            guard case .events(let events, let finished) = registry.read(id, after: last) else { return }
            for event in events {
                // A client that reads slower than the replay is written waits here, so what
                // the server holds for it stays under the connection's high-water mark.
                guard await stream.waitForRoom(),
                    stream.writeEvent(data: event.data, type: event.type, id: String(event.sequence))
                else { return }
                last = event.sequence
            }
            if finished { return }
            let woke = await withTaskGroup(of: Bool.self) { [last] group in
                group.addTask {
                    await registry.wait(id, after: last)
                    return true
                }
                group.addTask {
                    do { try await time.sleep(heartbeat) } catch { return true }
                    return false
                }
                let first = await group.next() ?? true
                group.cancelAll()
                return first
            }
            if !woke { guard stream.writeComment("heartbeat") else { return } }
        }
    }

    /// Generates a scripted reply into the registry: the role chunk, one chunk per token (paced),
    /// the finish chunk, the usage chunk when asked for, `[DONE]`. `[[error]]` ends with an error
    /// frame and `[[interrupt]]` without `[DONE]` after three tokens.
    func produce(_ script: ScriptedStream) async {
        let registry = registry
        let overLimit = Self.overLimitFrame(registry.limits.maximumBytes)
        func append(_ data: String, type: String? = nil) -> Bool {
            if case .stored = registry.append(script.id, data: data, type: type, overLimitFrame: overLimit) {
                return true
            }
            return false
        }
        func chunk(_ choices: [ChatCompletionChunk.Choice], usage: ChatCompletionUsage? = nil) -> String {
            let chunk = ChatCompletionChunk(
                id: script.id, model: script.model, created: script.created, choices: choices, usage: usage)
            return JSONWriter().string(from: chunk.jsonValue)
        }
        guard append(chunk([.init(index: 0, role: "assistant", content: "")])) else { return }
        for index in 0...script.tokens.count {
            switch script.ending {
            case .error(let after) where index == min(after, script.tokens.count):
                let error = APIError(
                    status: 500, message: "The scripted agent failed as asked.", type: "server_error",
                    code: "scripted_error")
                _ = append(JSONWriter().string(from: error.body), type: "error")
                return
            case .interrupt(let after) where index == min(after, script.tokens.count):
                return
            default:
                break
            }
            guard index < script.tokens.count else { break }
            if options.pace > .zero {
                do { try await time.sleep(options.pace) } catch { return }
            }
            guard append(chunk([.init(index: 0, content: script.tokens[index])])) else { return }
        }
        guard append(chunk([.init(index: 0, finishReason: script.finish)])) else { return }
        if let usage = script.usage {
            guard append(chunk([], usage: usage)) else { return }
        }
        _ = append("[DONE]")
    }

    /// The error frame that ends a stream over its byte cap.
    static func overLimitFrame(_ maximumBytes: Int) -> String {
        let error = APIError(
            status: 500, message: "The reply passed the server's limit of \(maximumBytes) bytes per stream.",
            type: "server_error", code: "stream_too_large")
        return JSONWriter().string(from: error.body)
    }

    /// `Last-Event-ID` (preferred) or `?after=`: a decimal event id, 0 for the start.
    static func resumePoint(_ request: HTTPServerRequest) throws(APIError) -> Int64 {
        // Each is single-valued: a repeated one is refused, never read as its first value.
        let lastEventID = try request.singleHeader("Last-Event-ID")
        let after = try request.queryValue("after")
        let (name, text): (String, String?) = lastEventID != nil ? ("Last-Event-ID", lastEventID) : ("after", after)
        guard let text else { return 0 }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumEventIDDigits,
            trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = Int64(trimmed)
        else {
            throw APIError.invalid(
                "'\(name)' must be an event id: a whole number from 0 with at most \(maximumEventIDDigits) digits.",
                param: name)
        }
        return value
    }

    /// A stream id as shown in a message: bounded, so a hostile id is not echoed at length.
    private static func shown(_ id: String) -> String {
        id.utf8.count <= 64 && id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            ? id : "(that id)"
    }
}

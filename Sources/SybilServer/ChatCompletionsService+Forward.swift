import Foundation
import SybilCore
import SybilHTTP
import SybilWire

extension ChatCompletionsService {
    /// Sends `body` to the upstream. A streamed answer (200, `text/event-stream`) is parsed and
    /// re-emitted through the registry under this server's own stream id and event ids, so a
    /// client that drops resumes from what this server buffered; any other answer is read
    /// whole and mapped by ``UpstreamAnswer`` (relayed, or one of this server's errors).
    func forward(_ body: [UInt8], to base: URL, with client: any HTTPClient) async -> HTTPServerResponse {
        let request = HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: base, path: "v1/chat/completions"),
            headers: upstreamHeaders(accept: "text/event-stream"), body: body, timeout: .seconds(60))
        let response: HTTPStreamingResponse
        do {
            response = try await client.send(request)
        } catch {
            return UpstreamAnswer.failure(error, answerStarted: false).response
        }
        let contentType = response.head.headers["Content-Type"] ?? ""
        guard response.head.status == 200, contentType.lowercased().hasPrefix("text/event-stream") else {
            return await Self.relay(response)
        }
        let id = newCompletionID()
        let upstreamBody = response.body
        return startStream(id: id, kind: "forward") { [self] in await reemit(upstreamBody, as: id) }
    }

    /// `GET /v1/models[/{id}]` with `--upstream`: the upstream's own answer, mapped by
    /// ``UpstreamAnswer`` (the models a forwarding server offers are the upstream's).
    func forwardModels(path: String, to base: URL, with client: any HTTPClient) async -> HTTPServerResponse {
        let request = HTTPRequest(
            url: APIEndpoint.url(base: base, path: path), headers: upstreamHeaders(accept: "application/json"),
            timeout: .seconds(30))
        let response: HTTPStreamingResponse
        do {
            response = try await client.send(request)
        } catch {
            return UpstreamAnswer.failure(error, answerStarted: false).response
        }
        return await Self.relay(response)
    }

    private func upstreamHeaders(accept: String) -> HTTPHeaders {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", accept)])
        if let key = options.upstreamKey { headers.set("Authorization", "Bearer \(key)") }
        return headers
    }

    /// How long a forwarded upstream stream may stay silent before it counts as failed.
    static let upstreamIdleTimeout: Duration = .seconds(60)

    /// The upstream's stream went silent for ``upstreamIdleTimeout``.
    private struct UpstreamStalled: Error, CustomStringConvertible {
        var description: String { "no bytes for \(ChatCompletionsService.upstreamIdleTimeout)" }
    }

    /// When the upstream last sent bytes (server uptime), shared by the reader and the watchdog.
    private final class LastActivity: Sendable {
        private let value: Locked<Duration>
        init(_ now: Duration) { value = Locked(now) }
        var time: Duration { value.withLock { $0 } }
        func touch(_ now: Duration) { value.withLock { $0 = now } }
    }

    /// Parses the upstream's events and appends each to stream `id`: chunk ids are replaced by
    /// `id`, `[DONE]` and error frames pass as they are. More upstream bytes than the stream
    /// may hold end it with the over-limit frame; an upstream failure, an upstream silent for
    /// ``upstreamIdleTimeout`` (on the server's clock) and an upstream end without `[DONE]` end
    /// it with an `upstream_failed` frame (the client sees why, and a stalled upstream does not
    /// hold one of the registry's slots for ever).
    private func reemit(_ body: AsyncThrowingStream<[UInt8], any Error>, as id: String) async {
        let registry = registry
        let overLimit = Self.overLimitFrame(registry.limits.maximumBytes)
        func fail(_ message: String) {
            let failure = APIError(status: 502, message: message, code: "upstream_failed")
            registry.append(
                id, data: JSONWriter().string(from: failure.body), type: "error", overLimitFrame: overLimit)
        }
        let time = time
        let lastActivity = LastActivity(time.uptime())
        do {
            let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await Self.reemitEvents(of: body, as: id, into: registry, overLimit: overLimit) {
                        lastActivity.touch(time.uptime())
                    }
                }
                group.addTask {
                    while true {
                        let silent = time.uptime() - lastActivity.time
                        if silent >= Self.upstreamIdleTimeout { throw UpstreamStalled() }
                        try await time.sleep(Self.upstreamIdleTimeout - silent)
                    }
                }
                defer { group.cancelAll() }
                return try await group.next() ?? true
            }
            if !ended { fail("The upstream stream ended before [DONE].") }
        } catch let error as UpstreamStalled {
            fail("The upstream stream failed: \(error).")
        } catch {
            if Task.isCancelled { return }
            // The platform's error text names the upstream's address: not for the client.
            fail("The upstream stream broke off before [DONE].")
        }
    }

    /// Appends the events of `body` to stream `id`, calling `activity` for every chunk; returns
    /// whether the stream ended as it should (`[DONE]`, or the registry closed it), `false`
    /// when the upstream ended without `[DONE]`.
    private static func reemitEvents(
        of body: AsyncThrowingStream<[UInt8], any Error>, as id: String, into registry: ChatStreamRegistry,
        overLimit: String, activity: @Sendable () -> Void
    ) async throws -> Bool {
        let limit = registry.limits.maximumBytes
        // One event may not exceed what the whole stream may hold; returning closes the
        // upstream (the body is read only as it is asked for, so nothing more is downloaded).
        var parser = EventStreamParser(limits: .init(maximumEventBytes: limit))
        var received = 0
        for try await bytes in body {
            activity()
            received += bytes.count
            let events: [ServerSentEvent]
            do {
                guard received <= limit + 64 << 10 else {
                    throw EventStreamParser.LimitExceeded.eventTooLarge(limit: limit)
                }
                events = try parser.feed(bytes)
            } catch {
                registry.append(id, data: overLimit, type: "error", overLimitFrame: overLimit)
                return true
            }
            for event in events {
                let type = event.type == "message" ? nil : event.type
                let appended = registry.append(
                    id, data: renamed(event.data, to: id), type: type, overLimitFrame: overLimit)
                guard case .stored = appended else { return true }
                if type == nil, event.data == "[DONE]" { return true }
            }
        }
        try Task.checkCancellation()
        return false
    }

    /// `data` with its top-level `id` member replaced by `id` when it is a JSON object with one.
    static func renamed(_ data: String, to id: String) -> String {
        guard data.hasPrefix("{"), case .object(var object)? = try? JSONReader().parse(data),
            let index = object.members.firstIndex(where: { $0.key == "id" })
        else { return data }
        object.members[index].value = .string(id)
        return JSONWriter().string(from: .object(object))
    }

    /// Reads an answer that is not a stream whole (at most ``UpstreamAnswer/maximumBodyBytes``,
    /// and only when it may be relayed) and maps it through ``UpstreamAnswer/relay(status:headers:body:)``.
    private static func relay(_ response: HTTPStreamingResponse) async -> HTTPServerResponse {
        let head = response.head
        guard UpstreamAnswer.relaysBody(status: head.status) else {
            // Nothing of it reaches the client: the body is not read (an upstream 101 would
            // never end it).
            return UpstreamAnswer.relay(status: head.status, headers: head.headers, body: [])
        }
        let limit = UpstreamAnswer.maximumBodyBytes
        do {
            let bytes = try await response.collect(limit: limit + 1)
            guard bytes.count <= limit else {
                return APIError(
                    status: 502, message: "The upstream answer is over \(limit) bytes.", code: "upstream_too_large"
                ).response
            }
            return UpstreamAnswer.relay(status: head.status, headers: head.headers, body: bytes)
        } catch {
            return UpstreamAnswer.failure(error, answerStarted: true).response
        }
    }
}

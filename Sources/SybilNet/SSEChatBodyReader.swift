import SybilCore
import SybilHTTP
import SybilWire

/// The reading half of ``SSEChatTransport``: a `text/event-stream` body through the
/// event-stream parser and the chunk decoder into batches of ``ChatChunkDelivery``, one batch
/// per read of the body. Each event is decoded as the parser dispatches it, so the parser's
/// event buffer is reused instead of a new array per event, and a batch is handed on with its
/// cost (the bytes of its events) already summed. Not generic: the per-event work is compiled
/// for its concrete types.
enum SSEChatBodyReader {
    /// Reads `first` (bytes of the body already read) and the rest of `body` until
    /// `data: [DONE]` (returns `true`), its end (returns `false`), an error frame, a malformed
    /// chunk, a stream past the parser's limits, or a failure of the body (all thrown as
    /// ``ChatStreamError``). `touch` is called when bytes arrive and after the consumer took a
    /// batch; `finished` when a chunk brings a `finish_reason`.
    static func read(
        _ body: inout AsyncThrowingStream<[UInt8], any Error>.Iterator, first: [UInt8] = [],
        touch: () -> Void, finished: () -> Void, into yield: BoundedBatchYield<ChatChunkDelivery>
    ) async throws -> Bool {
        var parser = EventStreamParser()
        var state = State()
        var pending: [UInt8]? = first.isEmpty ? nil : first
        do {
            while let bytes = try await Self.next(&pending, from: &body) {
                touch()
                // The events completed before a limit was passed are handed on first, so what
                // arrives does not depend on how the bytes were split into reads.
                var refusal: EventStreamParser.LimitExceeded?
                do throws(EventStreamParser.LimitExceeded) {
                    try parser.feed(bytes) { event in state.take(event, finished: finished) }
                } catch {
                    refusal = error
                }
                // The chunks before the end, an error frame or a malformed event are handed on
                // first, as they would be one at a time.
                if !state.batch.isEmpty {
                    let (batch, cost) = state.takeBatch()
                    // Waiting for the consumer is not the server's silence.
                    guard await yield(batch, cost) else { throw CancellationError() }
                    touch()
                }
                switch state.ending {
                case .done?: return true
                case .failed(let error)?: throw error
                case nil: break
                }
                // Reading stops here: dropping the body closes the connection.
                if let refusal { throw ChatStreamError.tooLarge(refusal.description) }
            }
            // The body ended without `[DONE]`: a surrogate still held is handed on as U+FFFD.
            state.releaseHeldText()
            if !state.batch.isEmpty {
                let (batch, cost) = state.takeBatch()
                guard await yield(batch, cost) else { throw CancellationError() }
            }
        } catch let error as ChatStreamError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ChatStreamError.transport(String(describing: error))
        }
        return false
    }

    /// `pending` (taken) when it holds bytes, otherwise the body's next piece.
    private static func next(
        _ pending: inout [UInt8]?, from body: inout AsyncThrowingStream<[UInt8], any Error>.Iterator
    ) async throws -> [UInt8]? {
        if let bytes = pending {
            pending = nil
            return bytes
        }
        return try await body.next()
    }

    /// The decoder (it keeps its buffers for the whole stream, as the parser does) and the
    /// batch being made from one read.
    private struct State {
        var decoder = ChatCompletionChunkDecoder()
        var batch: [ChatChunkDelivery] = []
        var cost = 0
        /// How the events of this read ended the stream; later events are ignored.
        var ending: Ending?
        /// The last event id read and its value: a server that sends no ids, or the same one
        /// again, is not parsed per event.
        var lastIDText = ""
        var lastID: Int64?

        /// Decodes one dispatched event into the batch, or notes how it ends the stream.
        mutating func take(_ event: ServerSentEvent, finished: () -> Void) {
            guard ending == nil else { return }
            let decoded: OpenAIStreamEvent
            do {
                decoded = try OpenAIStreamEvent.decode(event, using: &decoder)
            } catch {
                releaseHeldText()
                ending = .failed(ChatStreamError.malformedChunk(String(describing: error)))
                return
            }
            switch decoded {
            case .chunk(let chunk):
                if chunk.finishReason != nil { finished() }
                if event.lastEventId != lastIDText {
                    lastIDText = event.lastEventId
                    lastID = SSEChatBodyReader.eventID(lastIDText)
                }
                let bytes = event.dataBytes.count
                batch.append(ChatChunkDelivery(chunk: chunk, eventID: lastID, bytes: bytes))
                cost += max(1, bytes)
            case .done:
                releaseHeldText()
                ending = .done
            case .error(let body):
                releaseHeldText()
                ending = .failed(ChatStreamError.errorFrame(body))
            }
        }

        /// Adds the chunk with the surrogates the decoder still holds as U+FFFD (the half of a
        /// pair whose other half never came), when it holds any; without an event id, so that
        /// a resumed stream's numbering is not moved.
        mutating func releaseHeldText() {
            guard let tail = decoder.finish() else { return }
            batch.append(ChatChunkDelivery(chunk: tail, eventID: nil, bytes: 0))
            cost += 1
        }

        /// The batch made so far and its cost; the next one starts empty, with room for as
        /// many deliveries.
        mutating func takeBatch() -> ([ChatChunkDelivery], Int) {
            var taken: [ChatChunkDelivery] = []
            taken.reserveCapacity(batch.count)
            swap(&taken, &batch)
            defer { cost = 0 }
            return (taken, cost)
        }
    }

    /// How a read's events ended the stream early.
    private enum Ending {
        /// `data: [DONE]`.
        case done
        /// An error frame or a malformed event.
        case failed(ChatStreamError)
    }

    /// A decimal event id (1 to 18 digits), else `nil`.
    static func eventID(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { digits in
            guard !digits.isEmpty, digits.count <= 18 else { return nil }
            var value: Int64 = 0
            for byte in digits {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value &* 10 &+ Int64(byte &- 0x30)
            }
            return value
        }
    }
}

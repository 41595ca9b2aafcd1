import SybilHTTP

/// Fuzzes the WebSocket frame decoder and message assembler. The input's first byte chooses the
/// direction (odd: frames from a client, which must be masked; even: from a server), the rest
/// is the byte stream. Fed whole, byte by byte or in seeded pieces, a stream gives the same
/// events and the same protocol error; every decoded frame, encoded again, decodes to itself.
public enum WebSocketFuzzTarget {
    /// Small limits, so inputs of a few kilobytes reach them.
    static let maximumPayload = 1_024
    static let maximumMessage = 2_048

    /// What a decoder and assembler made of one stream.
    struct Outcome: Equatable {
        var events: [WebSocketEvent]
        var error: WebSocketProtocolError?
    }

    /// Decodes the stream in each chunking, compares the outcomes and checks each frame's
    /// round trip.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let flags = bytes.first else { return }
        let expectMasked = flags & 1 == 1
        let stream = Array(bytes.dropFirst())
        var reference: (name: String, outcome: Outcome)?
        for (name, chunks) in FuzzSplits.chunkings(of: stream) {
            let outcome = try decode(chunks, expectMasked: expectMasked, checkRoundTrip: reference == nil)
            guard let reference else {
                reference = (name, outcome)
                continue
            }
            guard outcome == reference.outcome else {
                throw FuzzFailure(
                    target: .websocket,
                    "fed \(reference.name): \(describe(reference.outcome)); fed \(name): \(describe(outcome))")
            }
        }
    }

    private static func decode(
        _ chunks: [ArraySlice<UInt8>], expectMasked: Bool, checkRoundTrip: Bool
    ) throws(FuzzFailure) -> Outcome {
        var decoder = WebSocketFrameDecoder(expectMasked: expectMasked, maximumPayload: maximumPayload)
        var assembler = WebSocketMessageAssembler(maximumMessage: maximumMessage)
        var events: [WebSocketEvent] = []
        var frames: [WebSocketFrame] = []
        var outcome = Outcome(events: [], error: nil)
        do throws(WebSocketProtocolError) {
            for chunk in chunks {
                decoder.append(chunk)
                while let frame = try decoder.nextFrame() {
                    frames.append(frame)
                    if let event = try assembler.add(frame) { events.append(event) }
                }
            }
        } catch {
            outcome.error = error
        }
        outcome.events = events
        if checkRoundTrip {
            for frame in frames { try roundTrip(frame, expectMasked: expectMasked) }
        }
        return outcome
    }

    /// Encodes `frame` (masked with a key taken from its payload when client frames are
    /// expected) and decodes it again.
    private static func roundTrip(_ frame: WebSocketFrame, expectMasked: Bool) throws(FuzzFailure) {
        let key: [UInt8]? = expectMasked ? (frame.payload + [0x5A, 0xA5, 0x3C, 0xC3]).prefix(4).map { $0 } : nil
        var decoder = WebSocketFrameDecoder(expectMasked: expectMasked, maximumPayload: maximumPayload)
        decoder.append(frame.encoded(maskingKey: key))
        let again: WebSocketFrame?
        do {
            again = try decoder.nextFrame()
        } catch {
            throw FuzzFailure(target: .websocket, "a decoded frame, encoded again, is refused: \(error)")
        }
        guard again == frame else {
            throw FuzzFailure(target: .websocket, "a decoded frame, encoded again, decodes to a different frame")
        }
    }

    private static func describe(_ outcome: Outcome) -> String {
        "\(outcome.events.count) events, " + (outcome.error.map { "then \($0)" } ?? "no error")
    }
}

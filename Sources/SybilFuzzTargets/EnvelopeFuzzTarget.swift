import SybilCore
import SybilWire

/// Fuzzes the workspace chat load envelope decoder and the timeline page decoder behind it: an
/// object is decoded as an envelope, an array as a page of timeline rows; what decodes must
/// encode to contract JSON that decodes to the same value.
public enum EnvelopeFuzzTarget {
    /// Decodes `bytes`; checks that `decode(json:)` (read from the bytes) answers as the tree
    /// decoder does, envelope or error, and on success the encode → decode round trip.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        try checkBytesAgainstTree(bytes)
        guard let value = try? JSONFuzzTarget.reader.parse(bytes) else { return }
        switch value {
        case .object:
            guard let envelope = try? WorkspaceChatLoadEnvelope.decode(value, at: .root) else { return }
            let text = JSONWriter().bytes(from: envelope.jsonValue)
            let again: WorkspaceChatLoadEnvelope
            do {
                again = try WorkspaceChatLoadEnvelope.decode(json: text)
            } catch {
                throw FuzzFailure(target: .envelope, "an envelope's own JSON does not decode: \(error)")
            }
            guard again == envelope else {
                throw FuzzFailure(target: .envelope, "an envelope's own JSON decodes to a different envelope")
            }
        case .array:
            guard let blocks = try? TimelinePageDecoder.decodeBlocks(value, at: .root) else { return }
            let page = JSONValue.array(blocks.map(\.jsonValue))
            let again: [TimelineBlock]
            do {
                again = try TimelinePageDecoder.decodeBlocks(
                    try JSONFuzzTarget.reader.parse(JSONWriter().bytes(from: page)), at: .root)
            } catch {
                throw FuzzFailure(target: .envelope, "a timeline page's own JSON does not decode: \(error)")
            }
            guard again == blocks else {
                throw FuzzFailure(target: .envelope, "a timeline page's own JSON decodes to different rows")
            }
        default:
            return
        }
    }

    /// `decode(json:)` reads the envelope from its bytes; the tree decoder is the reference.
    private static func checkBytesAgainstTree(_ bytes: [UInt8]) throws(FuzzFailure) {
        let limits = JSONFuzzTarget.reader.limits
        let fromBytes: Result<WorkspaceChatLoadEnvelope, JSONError>
        do {
            fromBytes = .success(try WorkspaceChatLoadEnvelope.decode(json: bytes, limits: limits))
        } catch {
            fromBytes = .failure(error)
        }
        let fromTree: Result<WorkspaceChatLoadEnvelope, JSONError>
        do {
            fromTree = .success(try WorkspaceChatLoadEnvelope.decode(try JSONFuzzTarget.reader.parse(bytes), at: .root))
        } catch {
            fromTree = .failure(error)
        }
        guard fromBytes == fromTree else {
            throw FuzzFailure(
                target: .envelope, "decode(json:) answers \(fromBytes), the tree decoder \(fromTree)")
        }
    }
}

import SybilCore
import SybilWire

/// Fuzzes the workspace chat load envelope decoder and the timeline page decoder behind it: an
/// object is decoded as an envelope, an array as a page of timeline rows; what decodes must
/// encode to contract JSON that decodes to the same value.
public enum EnvelopeFuzzTarget {
    /// Decodes `bytes`; on success checks the encode → decode round trip.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
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
}

import SybilCore

/// The one decoder for a page of timeline rows, shared by the newest window, older pages,
/// thread pages and the live overlay: every row is validated and a duplicate splice key
/// fails the whole page.
public enum TimelinePageDecoder {
    /// Decodes `value` (an array of rows) at `path`.
    public static func decodeBlocks(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> [TimelineBlock] {
        guard case .array(let elements) = value else {
            throw .contract(path, "expected an array of timeline rows, got \(value.kindDescription)")
        }
        var blocks: [TimelineBlock] = []
        blocks.reserveCapacity(elements.count)
        var firstPosition: [TimelineRowIdentity: Int] = [:]
        firstPosition.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            let block = try TimelineBlock.decode(element, at: path.appending(index: position))
            if let earlier = firstPosition.updateValue(position, forKey: block.identity) {
                throw .contract(
                    path.appending(index: position),
                    "duplicate splice key \(block.identity) (also at \(path.appending(index: earlier))); the page is rejected"
                )
            }
            blocks.append(block)
        }
        return blocks
    }
}

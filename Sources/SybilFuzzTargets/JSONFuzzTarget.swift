import SybilCore

/// Fuzzes the strict JSON reader: any bytes either fail with a `JSONError` or give a value that
/// the writer turns back into text the reader reads as the same value, compact and pretty, and
/// writing is idempotent.
public enum JSONFuzzTarget {
    /// Nesting is bounded lower than the product's 512 so deep documents stay cheap to fuzz;
    /// the limit itself is still exercised.
    static let reader = JSONReader(limits: JSONReader.Limits(maxDepth: 128, maxBytes: 1 << 20))

    /// Parses `bytes`; on success checks the write → read round trip.
    public static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let value = try? reader.parse(bytes) else { return }
        let compact = JSONWriter(style: .compact).bytes(from: value)
        let pretty = JSONWriter(style: .pretty).bytes(from: value)
        for (style, text) in [("compact", compact), ("pretty", pretty)] {
            let again: JSONValue
            do {
                again = try reader.parse(text)
            } catch {
                throw FuzzFailure(target: .json, "the \(style) writer's output does not parse: \(error)")
            }
            guard again == value else {
                throw FuzzFailure(target: .json, "the \(style) writer's output parses to a different value")
            }
            guard JSONWriter(style: .compact).bytes(from: again) == compact else {
                throw FuzzFailure(target: .json, "writing the \(style) round trip again gives different text")
            }
        }
    }
}

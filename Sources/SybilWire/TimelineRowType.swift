import SybilCore

/// The kind of a timeline row, as the desktop sends it in `type`.
public enum TimelineRowType: String, Sendable, Hashable, CaseIterable {
    /// A message the user wrote.
    case user
    /// A system notice.
    case system
    /// Agent activity such as a tool call; may open a subagent thread.
    case activity
    /// A reply from the agent.
    case agentReply = "agent-reply"
    /// The agent's thinking.
    case thinking
}

/// Whether a row comes from confirmed history or from the live state of a run.
public enum TimelineOrigin: String, Sendable, Hashable, CaseIterable {
    /// Confirmed, stored history.
    case canonical
    /// Live state of a run or an outbox echo, not yet confirmed.
    case live
}

extension RawRepresentable where RawValue == String, Self: CaseIterable {
    /// Decodes a string member that must be one of the cases' raw values.
    static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Self {
        let text = try JSONValueReader.string(value, at: path)
        guard let result = Self(rawValue: text) else {
            let allowed = allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")
            throw .contract(path, "\(JSONWriter.quoted(text)) is not one of \(allowed)")
        }
        return result
    }
}

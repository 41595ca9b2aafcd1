/// What the kill -9 delivery test sends: message `i` of `count` (0-based) has the text
/// `m-00042` style ``text(of:)`` and goes to surface `i % 3`, so a checker can tell order and
/// uniqueness from the texts alone, per conversation.
public struct DeliveryPlan: Sendable, Hashable {
    /// The three surfaces a message can go to.
    public enum Surface: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The workspace chat outbox (the desktop owns delivery).
        case workspace = 0
        /// The Agent room outbox.
        case agent = 1
        /// A chat (history kept by the client).
        case chats = 2

        public var description: String {
            switch self {
            case .workspace: "workspace"
            case .agent: "agent"
            case .chats: "chats"
            }
        }
    }

    /// How many messages there are in all.
    public let count: Int

    /// A plan of `count` messages (1…99,999).
    public init(count: Int) {
        precondition((1...99_999).contains(count), "a plan holds 1…99,999 messages")
        self.count = count
    }

    /// The surface message `index` goes to.
    public func surface(of index: Int) -> Surface {
        Surface(rawValue: index % 3)!
    }

    /// The text of message `index`: `m-` and five digits.
    public func text(of index: Int) -> String {
        let digits = String(index)
        return "m-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    /// The index a text names, or `nil` when it is not one of the plan's texts.
    public func index(of text: String) -> Int? {
        guard text.hasPrefix("m-"), text.utf8.count == 7, let index = Int(text.dropFirst(2)), index < count,
            self.text(of: index) == text
        else { return nil }
        return index
    }

    /// The indices of `surface`, in the order they are sent.
    public func indices(of surface: Surface) -> [Int] {
        Array(stride(from: surface.rawValue, to: count, by: 3))
    }
}

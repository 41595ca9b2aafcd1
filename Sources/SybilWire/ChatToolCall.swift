import SybilCore

/// A tool call a model made in an ordinary chat, put together from its streamed increments
/// (``ChatToolCallDelta``): shown as a card in the app and as a note by `sybil ask`. Sybil never
/// runs it. Bounded: at most ``maximumCalls`` calls, names of ``maximumNameBytes`` and
/// arguments of ``maximumArgumentBytes`` (more is dropped and ``truncated`` set).
public struct ChatToolCall: Sendable, Hashable {
    /// The most calls kept for one reply.
    public static let maximumCalls = 32
    /// The longest name kept, in bytes.
    public static let maximumNameBytes = 256
    /// The longest arguments kept, in bytes.
    public static let maximumArgumentBytes = 64 << 10

    /// The call's position among the reply's calls.
    public var index: Int
    /// The call's id, when the server sent one.
    public var id: String?
    /// The function's name (empty until it arrives).
    public var name: String
    /// The arguments as the model wrote them (JSON text, possibly cut).
    public var arguments: String
    /// Whether part of the name or arguments was dropped at a bound.
    public var truncated: Bool

    /// Creates a call.
    public init(index: Int, id: String? = nil, name: String = "", arguments: String = "", truncated: Bool = false) {
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
        self.truncated = truncated
    }

    /// Adds `deltas` to `calls`: an increment joins the call with its index (a new call is
    /// added in order of arrival), its id fills a missing one, and name and arguments pieces
    /// are appended up to their bounds.
    public static func merge(_ deltas: [ChatToolCallDelta], into calls: inout [ChatToolCall]) {
        for delta in deltas {
            let position: Int
            if let found = calls.firstIndex(where: { $0.index == delta.index }) {
                position = found
            } else {
                guard calls.count < maximumCalls else { continue }
                calls.append(ChatToolCall(index: delta.index))
                position = calls.count - 1
            }
            if calls[position].id == nil { calls[position].id = delta.id }
            if let name = delta.name {
                calls[position].truncated =
                    append(name, to: &calls[position].name, limit: maximumNameBytes) || calls[position].truncated
            }
            if let arguments = delta.arguments {
                calls[position].truncated =
                    append(arguments, to: &calls[position].arguments, limit: maximumArgumentBytes)
                    || calls[position].truncated
            }
        }
    }

    /// One line for a person: `name(arguments)` made safe for a terminal, at most `width`
    /// characters (an ellipsis marks a cut).
    public func summary(width: Int = 120) -> String {
        let text = TerminalText.oneLine((name.isEmpty ? "?" : name) + "(" + arguments + ")")
        guard text.count > width, width > 1 else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// The call as `sybil ask --json` writes it.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("id", id.map(JSONValue.string) ?? .null), JSONMember("name", .string(name)),
                JSONMember("arguments", .string(arguments)), JSONMember("truncated", .bool(truncated)),
            ]))
    }

    /// The longest id kept, in bytes (ids are short; a longer one is cut when saved).
    public static let maximumIDBytes = 256

    /// The call within every bound: the id, name and arguments cut to their bounds (at a
    /// character; a cut name or arguments sets ``truncated``). What the chat history saves.
    public var bounded: ChatToolCall {
        var call = ChatToolCall(index: index, truncated: truncated)
        if let id {
            var kept = ""
            _ = Self.append(id, to: &kept, limit: Self.maximumIDBytes)
            call.id = kept
        }
        call.truncated = Self.append(name, to: &call.name, limit: Self.maximumNameBytes) || call.truncated
        call.truncated =
            Self.append(arguments, to: &call.arguments, limit: Self.maximumArgumentBytes) || call.truncated
        return call
    }

    /// The call as the chat history keeps it: ``jsonValue`` with its `index`.
    public var storedValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("index", .number(JSONNumber(Int64(index)))),
                JSONMember("id", id.map(JSONValue.string) ?? .null),
                JSONMember("name", .string(name)), JSONMember("arguments", .string(arguments)),
                JSONMember("truncated", .bool(truncated)),
            ]))
    }

    /// Reads a call the chat history kept (``storedValue``), strictly: every member present
    /// and of its type, and the id, name and arguments within their bounds.
    public static func decodeStored(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatToolCall {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["index", "id", "name", "arguments", "truncated"])
        let call = ChatToolCall(
            index: Int(try reader.integer("index", in: 0...Int64(Int32.max))), id: try reader.nullableString("id"),
            name: try reader.string("name"), arguments: try reader.string("arguments"),
            truncated: try reader.bool("truncated"))
        for (key, text, limit) in [
            ("id", call.id ?? "", maximumIDBytes), ("name", call.name, maximumNameBytes),
            ("arguments", call.arguments, maximumArgumentBytes),
        ] where text.utf8.count > limit {
            throw JSONError(
                kind: .contract, path: path.appending(key: key), offset: nil,
                message: "holds \(text.utf8.count) bytes, more than \(limit)")
        }
        return call
    }

    /// Appends `piece` to `text` while it stays within `limit` bytes (cut at a character);
    /// whether anything was dropped.
    private static func append(_ piece: String, to text: inout String, limit: Int) -> Bool {
        let room = limit - text.utf8.count
        if piece.utf8.count <= room {
            text += piece
            return false
        }
        var kept = ""
        for character in piece {
            guard kept.utf8.count + character.utf8.count <= room else { break }
            kept.append(character)
        }
        text += kept
        return true
    }
}

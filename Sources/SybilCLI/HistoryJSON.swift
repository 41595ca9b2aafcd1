import SybilClient
import SybilCore
import SybilStore
import SybilWire

/// The JSON documents of `--json` on `history list`, `history show`, `history export`,
/// `search` and `records list` (shapes in docs/cli-json.md): camelCase members, every time
/// twice, as an ISO 8601 UTC string with milliseconds (`updatedAt`) and as milliseconds since
/// 1970 (`updatedAtMs`), and `null` for what is absent (never a missing member).
enum HistoryJSON {
    /// One chat entry of `history list --json` (`kind` `chat`).
    static func summary(_ conversation: ChatConversationRecord, messageCount: Int) -> JSONValue {
        .object(
            JSONObject(
                [JSONMember("kind", .string("chat"))] + header(conversation)
                    + [JSONMember("messageCount", number(Int64(messageCount)))]))
    }

    /// A saved web search (`kind` `webSearch`): a web-search entry of `history list --json`,
    /// `history show ID --json` for one, and `ask --web --json`, where `id` is `null` when
    /// nothing was saved (`--no-save`, or the save failed).
    static func webSearch(_ search: SavedWebSearch, id: String?) -> JSONValue {
        let sources = search.sources.map { source in
            JSONValue.object(
                JSONObject([JSONMember("title", .string(source.title)), JSONMember("url", .string(source.url))]))
        }
        return .object(
            JSONObject(
                [
                    JSONMember("kind", .string("webSearch")), JSONMember("id", text(id)),
                    JSONMember("query", .string(search.query)), JSONMember("answer", .string(search.answer)),
                    JSONMember("sources", .array(sources)),
                ] + times("createdAt", search.createdAt)))
    }

    /// `history show ID --json` and each entry of `history export --json`: the conversation
    /// with its messages in order.
    static func conversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord]) -> JSONValue {
        .object(JSONObject(header(conversation) + [JSONMember("messages", .array(messages.map(message)))]))
    }

    /// One message: its role, text as saved, model, how it ended, its times, its attached
    /// files (name, type, kind and size; the bytes stay in the history) and a reply's tool calls
    /// (as `ask --json` writes them).
    static func message(_ message: ChatMessageRecord) -> JSONValue {
        let (state, reason): (String, String?) =
            switch message.state {
            case .complete: ("complete", nil)
            case .streaming: ("streaming", nil)
            case .stopped: ("stopped", nil)
            case .failed(let reason): ("failed", reason)
            }
        return .object(
            JSONObject(
                [
                    JSONMember("id", .string(message.id)), JSONMember("role", .string(message.role.rawValue)),
                    JSONMember("text", .string(message.text)), JSONMember("model", text(message.model)),
                    JSONMember("state", .string(state)), JSONMember("failureReason", text(reason)),
                ] + times("createdAt", message.createdAt) + times("finishedAt", message.finishedAt)
                    + [
                        JSONMember("attachments", .array(message.attachments.map(attachment))),
                        JSONMember("toolCalls", .array(message.toolCalls.map(\.jsonValue))),
                    ]))
    }

    /// One attached file: its name, MIME type, kind (`text` or `image`) and size in bytes.
    static func attachment(_ attachment: ChatAttachment) -> JSONValue {
        [
            "name": .string(attachment.name), "type": .string(attachment.mimeType),
            "kind": .string(attachment.kind.rawValue), "size": .number(JSONNumber(Int64(attachment.size))),
        ]
    }

    /// One hit of `search --json`: where it is, its title, the whole text that matched.
    static func hit(_ hit: ChatSearchHit) -> JSONValue {
        let (kind, conversationId, messageId, webSearchId): (String, String?, String?, String?) =
            switch hit.source {
            case .title(let conversation): ("title", conversation, nil, nil)
            case .message(let conversation, let message): ("message", conversation, message, nil)
            case .webSearch(let id): ("webSearch", nil, nil, id)
            }
        return .object(
            JSONObject(
                [
                    JSONMember("kind", .string(kind)), JSONMember("conversationId", text(conversationId)),
                    JSONMember("messageId", text(messageId)), JSONMember("webSearchId", text(webSearchId)),
                    JSONMember("title", .string(hit.title)), JSONMember("text", .string(hit.text)),
                ] + times("updatedAt", hit.updatedAt)))
    }

    /// One entry of `records list --json`: the record's contract members (its `createdAt` as
    /// both times), then its sync state.
    static func record(_ stored: StoredRecord) -> JSONValue {
        guard case .object(let contract) = stored.record.jsonValue else {
            preconditionFailure("a record encodes as an object")
        }
        var members: [JSONMember] = []
        for member in contract.members {
            if member.key == "createdAt" {
                members += times("createdAt", stored.record.createdAt)
            } else {
                members.append(member)
            }
        }
        let rejection = stored.rejection.map { rejection in
            JSONValue.object(
                JSONObject([
                    JSONMember("code", .string(rejection.code)), JSONMember("message", .string(rejection.message)),
                    JSONMember("param", text(rejection.param)),
                ]))
        }
        members.append(JSONMember("synced", .bool(stored.isSynced)))
        members += times("syncedAt", stored.syncedAt)
        members.append(JSONMember("rejection", rejection ?? .null))
        return .object(JSONObject(members))
    }

    /// The document as one line of compact JSON and a line feed.
    static func document(_ value: JSONValue) -> String {
        JSONWriter().string(from: value) + "\n"
    }

    /// `2025-12-01T00:00:05.000Z` for milliseconds since 1970 (proleptic Gregorian, UTC).
    static func time(_ milliseconds: Int64) -> String {
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let (hour, rest) = dayMilliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        let (minute, rest2) = rest.quotientAndRemainder(dividingBy: 60_000)
        let (second, millisecond) = rest2.quotientAndRemainder(dividingBy: 1_000)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
            + "\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }

    // MARK: Parts

    private static func header(_ conversation: ChatConversationRecord) -> [JSONMember] {
        [JSONMember("id", .string(conversation.id)), JSONMember("title", .string(conversation.title))]
            + times("createdAt", conversation.createdAt) + times("updatedAt", conversation.updatedAt)
            + [JSONMember("systemPrompt", text(conversation.systemPrompt))]
    }

    /// `NAME` (ISO 8601) and `NAMEMs` (milliseconds), both `null` when there is no time.
    private static func times(_ name: String, _ milliseconds: Int64?) -> [JSONMember] {
        [
            JSONMember(name, milliseconds.map { .string(time($0)) } ?? .null),
            JSONMember(name + "Ms", milliseconds.map(number) ?? .null),
        ]
    }

    private static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    private static func number(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Howard Hinnant's `civil_from_days`: the date `days` after 1970-01-01.
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).0
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

import SybilCore

/// One local-first record (seed 004, docs/api/records.md): a profile, a mood, a breathing
/// session or a meditation, written on the device first and uploaded later by a batch sync.
///
/// The `id` is chosen by the client (a lowercase UUID) and is the idempotency key: the server
/// stores a record once per id, so a retried upload never duplicates it. Every value is
/// checked when it is made, whether decoded or built in code, so a record that exists is one
/// the server accepts.
public struct Record: Sendable, Hashable {
    /// What a record is about.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The person's profile; the newest one (``Record/isNewerProfile(than:)``) wins.
        case user
        /// A mood score with an optional note.
        case mood
        /// A breathing session.
        case breathing
        /// A meditation session.
        case meditation
    }

    /// The members of each kind.
    public enum Payload: Sendable, Hashable {
        /// A profile: the name shown for the person.
        case user(displayName: String)
        /// A mood from 1 (low) to 5 (high), with an optional note.
        case mood(score: Int, note: String?)
        /// A breathing session: its length and the breathing cycles done.
        case breathing(durationSeconds: Int, cycles: Int)
        /// A meditation session: its length.
        case meditation(durationSeconds: Int)

        /// The kind of record this payload makes.
        public var kind: Kind {
            switch self {
            case .user: .user
            case .mood: .mood
            case .breathing: .breathing
            case .meditation: .meditation
            }
        }
    }

    /// The client-chosen id (lowercase UUID), the same on every upload.
    public let id: String
    /// When the record was made, milliseconds since 1970 (UTC).
    public let createdAt: Int64
    /// The kind's members.
    public let payload: Payload

    /// The record's kind.
    public var kind: Kind { payload.kind }

    // MARK: Limits

    /// `createdAt` range: from 1970 to the end of year 9999, in milliseconds.
    public static let createdAtRange: ClosedRange<Int64> = 0...253_402_300_799_999
    /// Mood scores.
    public static let scoreRange: ClosedRange<Int64> = 1...5
    /// The most UTF-8 bytes a mood note may have.
    public static let maxNoteBytes = 1_000
    /// Session lengths in seconds (one second to one day).
    public static let durationRange: ClosedRange<Int64> = 1...86_400
    /// Breathing cycles per session.
    public static let cyclesRange: ClosedRange<Int64> = 0...10_000
    /// Characters (grapheme clusters) a display name may have.
    public static let displayNameCharacters: ClosedRange<Int> = 1...100
    /// The most UTF-8 bytes a display name may have, so combining marks cannot make a
    /// 100-character name unbounded.
    public static let maxDisplayNameBytes = 1_000

    /// A record checked against the same rules as a decoded one; the error names the member
    /// (`createdAt`, `score`, `note`, …) at the root path.
    public init(id: String, createdAt: Int64, payload: Payload) throws(JSONError) {
        let root = JSONPath.root
        try Self.checkID(id, at: root.appending(key: "id"))
        try Self.check(createdAt, in: Self.createdAtRange, at: root.appending(key: "createdAt"))
        switch payload {
        case .user(let displayName):
            try Self.checkDisplayName(displayName, at: root.appending(key: "displayName"))
        case .mood(let score, let note):
            try Self.check(Int64(score), in: Self.scoreRange, at: root.appending(key: "score"))
            if let note { try Self.checkNote(note, at: root.appending(key: "note")) }
        case .breathing(let durationSeconds, let cycles):
            try Self.check(Int64(durationSeconds), in: Self.durationRange, at: root.appending(key: "durationSeconds"))
            try Self.check(Int64(cycles), in: Self.cyclesRange, at: root.appending(key: "cycles"))
        case .meditation(let durationSeconds):
            try Self.check(Int64(durationSeconds), in: Self.durationRange, at: root.appending(key: "durationSeconds"))
        }
        self.init(unchecked: id, createdAt: createdAt, payload: payload)
    }

    private init(unchecked id: String, createdAt: Int64, payload: Payload) {
        self.id = id
        self.createdAt = createdAt
        self.payload = payload
    }

    /// Whether this profile replaces `other`: profiles are last-writer-wins by `createdAt`,
    /// and of two made in the same millisecond the one with the larger id wins, so every
    /// device and the server pick the same one whatever order they saw them in.
    public func isNewerProfile(than other: Record) -> Bool {
        if createdAt != other.createdAt { return createdAt > other.createdAt }
        return id > other.id
    }

    // MARK: JSON

    /// Decodes a record: `id`, `kind` and `createdAt`, then the kind's members. Members this
    /// version does not know are ignored (fields are only ever added); a missing or
    /// wrong-typed member fails with its path.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Record {
        let reader = try JSONObjectReader(value, at: path)
        let id = try reader.string("id")
        try checkID(id, at: path.appending(key: "id"))
        let kindText = try reader.string("kind")
        guard let kind = Kind(rawValue: kindText) else {
            throw .contract(
                path.appending(key: "kind"),
                "must be one of \(Kind.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")), got \(JSONWriter.quoted(String(kindText.prefix(40))))"
            )
        }
        let createdAt = try reader.integer("createdAt", in: createdAtRange)
        let payload: Payload
        switch kind {
        case .user:
            let name = try reader.string("displayName")
            try checkDisplayName(name, at: path.appending(key: "displayName"))
            payload = .user(displayName: name)
        case .mood:
            let score = try reader.integer("score", in: scoreRange)
            let note = try reader.optionalString("note")
            if let note { try checkNote(note, at: path.appending(key: "note")) }
            payload = .mood(score: Int(score), note: note)
        case .breathing:
            payload = .breathing(
                durationSeconds: Int(try reader.integer("durationSeconds", in: durationRange)),
                cycles: Int(try reader.integer("cycles", in: cyclesRange)))
        case .meditation:
            payload = .meditation(durationSeconds: Int(try reader.integer("durationSeconds", in: durationRange)))
        }
        return Record(unchecked: id, createdAt: createdAt, payload: payload)
    }

    /// The record as contract JSON, members in contract order (`note` only when there is one).
    /// Equal records encode to equal bytes, so the encoding is also the record's fingerprint.
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("id", .string(id)), JSONMember("kind", .string(kind.rawValue)),
            JSONMember("createdAt", .number(JSONNumber(createdAt))),
        ]
        switch payload {
        case .user(let displayName):
            members.append(JSONMember("displayName", .string(displayName)))
        case .mood(let score, let note):
            members.append(JSONMember("score", .number(JSONNumber(Int64(score)))))
            if let note { members.append(JSONMember("note", .string(note))) }
        case .breathing(let durationSeconds, let cycles):
            members.append(JSONMember("durationSeconds", .number(JSONNumber(Int64(durationSeconds)))))
            members.append(JSONMember("cycles", .number(JSONNumber(Int64(cycles)))))
        case .meditation(let durationSeconds):
            members.append(JSONMember("durationSeconds", .number(JSONNumber(Int64(durationSeconds)))))
        }
        return .object(JSONObject(members))
    }

    /// The compact JSON text of ``jsonValue``: what is stored and compared for idempotency.
    public var canonicalJSON: String { JSONWriter().string(from: jsonValue) }
}

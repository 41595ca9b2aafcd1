import SybilCore
import SybilStore
import SybilWire

/// The records of an Agent room outbox journal (``AgentOutboxFile``): one JSON object per
/// saved batch of changes, holding only what changed since the state before it.
///
/// ```json
/// {"add": [{"requestId": "…", "text": "…", …}],
///  "set": {"<request id>": {"state": "failed", "failure": {…}}},
///  "send": {"<request id>": <attempts>},
///  "ack": {"<request id>": ["<message id>", "<cursor>"]},
///  "confirm": ["<request id>"],
///  "unset": {"<request id>": ["failure"]},
///  "remove": ["<request id>"],
///  "retiredDraftIds": ["draft-7"],
///  "claim": "<boot id>"}
/// ```
///
/// Every member is optional. A record applies to the document before it in this order:
/// `remove` drops entries, `set` replaces or adds members of an entry, `send` sets an entry's
/// state to `sending` with its attempts, `ack` sets an entry's state to `awaiting-echo` with its
/// acknowledgement (`{"messageId", "cursor"}`), `confirm` sets an entry's state to `confirmed`,
/// `unset` drops members, `add` appends whole entries (as ``AgentOutboxDocument`` stores them),
/// and `retiredDraftIds` replaces the list. `send`, `ack` and `confirm` are the short forms of
/// the three changes every delivered message makes (handed over, its receipt, its echo); any
/// other change is a `set` (records written before the short forms existed hold those as `set`
/// too, and still read).
///
/// `claim` is not a change to the entries: a boot id (``BootIdentity``) opens a claim, `null`
/// closes it. While a claim of the running boot is open (written with `fsync`), the outbox
/// writes `sending` states without `fsync`; a launch that finds a claim of another boot open
/// cannot trust that the journal holds every such state (``AgentOutbox``). A snapshot holds no
/// claim: a compaction closes it. A record that names an entry that is not
/// there (or adds one that is) is refused; the entries themselves are checked by
/// ``AgentOutboxDocument/decode(_:)`` once every record is applied.
enum AgentOutboxJournal {
    /// The members a record may hold.
    static let keys = ["add", "set", "send", "ack", "confirm", "unset", "remove", "retiredDraftIds", "claim"]

    /// The longest boot id a `claim` holds.
    static let maxClaimBytes = 64

    /// A change to the claim a record makes.
    enum Claim: Equatable {
        /// `sending` states of the boot `id` may be written without `fsync` from here on.
        case open(String)
        /// Every `sending` state is written with `fsync` from here on.
        case close
    }

    /// A snapshot with records applied (``merged(snapshot:records:)``).
    struct Merged {
        /// The document's bytes.
        var bytes: [UInt8]
        /// The first record that could not be applied.
        var problem: JSONError?
        /// The boot id of the claim the applied records leave open, or `nil` (none, or closed).
        var claim: String?
    }

    /// A record and the request ids of the entries it changed, added or removed.
    struct Record {
        /// The record's bytes.
        var bytes: [UInt8]
        /// Entries whose members changed, or that were added.
        var touched: [AgentOutboxEntry]
        /// Entries that left.
        var removed: [String]
    }

    /// The record that turns `old` into `new`, or `nil` when there is nothing to record or
    /// the change cannot be written as one (entries reordered): then the whole document is
    /// saved instead. `encoded` gives an entry's stored bytes (cached by the caller). Linear
    /// in the entries, without hashing the unchanged ones.
    static func record(
        from old: AgentOutboxQueue, to new: AgentOutboxQueue, claim: Claim? = nil,
        encoded: (AgentOutboxEntry) -> [UInt8]
    ) -> Record? {
        var removed: [String] = []
        var changes = Changes()
        var touched: [AgentOutboxEntry] = []
        var next = 0
        old.entries.withUnsafeBufferPointer { olds in
            new.entries.withUnsafeBufferPointer { news in
                for index in olds.indices {
                    guard next < news.count, news[next].requestId == olds[index].requestId else {
                        removed.append(olds[index].requestId)
                        continue
                    }
                    next += 1
                    // The rules change only an entry's progress; its submission is fixed when queued.
                    guard !sameProgress(olds[index], news[next - 1]) else { continue }
                    if changes.note(from: olds[index], to: news[next - 1]) { touched.append(news[next - 1]) }
                }
            }
        }
        // New entries come after the survivors, in order; one that was there before means the
        // entries were reordered.
        let added = new.entries[next...]
        if !removed.isEmpty {
            let gone = Set(removed)
            guard !added.contains(where: { gone.contains($0.requestId) }) else { return nil }
        }
        touched += added
        let retiredChanged = old.retiredDraftIds != new.retiredDraftIds
        guard !removed.isEmpty || !changes.isEmpty || !added.isEmpty || retiredChanged || claim != nil else {
            return nil
        }
        let bytes = bytes(
            added: Array(added), changes: changes, removed: removed,
            retired: retiredChanged ? new.retiredDraftIds : nil, claim: claim, encoded: encoded)
        return Record(bytes: bytes, touched: touched, removed: removed)
    }

    /// The record that turns `old` into `new` when only the entries `changed` (request ids)
    /// were added, changed or removed, or `nil` when there is nothing to record; as
    /// ``record(from:to:encoded:)`` would write it, in time linear in `changed` (times a
    /// binary search), not in the queue.
    static func record(
        changed: [String], from old: AgentOutboxQueue, to new: AgentOutboxQueue, claim: Claim? = nil,
        encoded: (AgentOutboxEntry) -> [UInt8]
    ) -> Record? {
        var removed: [String] = []
        var changes = Changes()
        var touched: [AgentOutboxEntry] = []
        var added: [(position: Int, entry: AgentOutboxEntry)] = []
        for id in changed {
            let was = old.position(of: id)
            let now = new.position(of: id)
            switch (was, now) {
            case (nil, nil): continue
            case (.some, nil): removed.append(id)
            case (nil, .some(let position)): added.append((position, new.entries[position]))
            case (.some(let before), .some(let after)):
                let entry = new.entries[after]
                guard !sameProgress(old.entries[before], entry) else { continue }
                if changes.note(from: old.entries[before], to: entry) { touched.append(entry) }
            }
        }
        added.sort { $0.position < $1.position }
        touched += added.map(\.entry)
        let retiredChanged = old.retiredDraftIds != new.retiredDraftIds
        guard !removed.isEmpty || !changes.isEmpty || !added.isEmpty || retiredChanged || claim != nil else {
            return nil
        }
        return Record(
            bytes: bytes(
                added: added.map(\.entry), changes: changes, removed: removed,
                retired: retiredChanged ? new.retiredDraftIds : nil, claim: claim, encoded: encoded),
            touched: touched, removed: removed)
    }

    /// The changed members of the entries a record changes, in the record's members.
    struct Changes: Equatable {
        var setting: [JSONMember] = []
        var sent: [JSONMember] = []
        var acknowledged: [JSONMember] = []
        var confirmed: [JSONValue] = []
        var unsetting: [JSONMember] = []

        var isEmpty: Bool {
            setting.isEmpty && sent.isEmpty && acknowledged.isEmpty && confirmed.isEmpty && unsetting.isEmpty
        }

        /// Adds what turns `old` into `new` (the same entry); false when nothing differs. A
        /// hand-over (the state `sending` and the attempts, nothing dropped) goes to `send`, a
        /// receipt (the state `awaiting-echo` and the acknowledgement) goes to `ack` and an
        /// echo that only changes the state to `confirmed` goes to `confirm`; anything else to
        /// `set` and `unset`.
        mutating func note(from old: AgentOutboxEntry, to new: AgentOutboxEntry) -> Bool {
            if noteProgress(from: old, to: new) { return true }
            return noteMembers(from: old, to: new)
        }

        /// The three changes every delivered message makes (hand-over, receipt, echo), told
        /// from the entries' fields without building their JSON: the same members
        /// ``noteMembers(from:to:)`` finds, because the fields compared equal have equal
        /// members and each differing one differs in its member. False (nothing noted) for
        /// anything else.
        mutating func noteProgress(from old: AgentOutboxEntry, to new: AgentOutboxEntry) -> Bool {
            // Every other field equal (compared whole, so a field added later counts too).
            var others = new
            others.state = old.state
            others.attempts = old.attempts
            others.acknowledgement = old.acknowledgement
            guard old.state != new.state, others == old else { return false }
            let attemptsChanged = old.attempts != new.attempts
            let acknowledgementChanged = old.acknowledgement != new.acknowledgement
            switch new.state {
            case .confirmed where !attemptsChanged && !acknowledgementChanged:
                confirmed.append(.string(new.requestId))
            case .sending where attemptsChanged && !acknowledgementChanged:
                sent.append(JSONMember(new.requestId, .number(JSONNumber(Int64(new.attempts)))))
            case .awaitingEcho where !attemptsChanged && acknowledgementChanged:
                guard let acknowledgement = new.acknowledgement else { return false }
                acknowledged.append(
                    JSONMember(
                        new.requestId, .array([.string(acknowledgement.messageId), acknowledgement.cursor.jsonValue])))
            default:
                return false
            }
            return true
        }

        /// ``note(from:to:)`` by comparing the entries' stored members.
        mutating func noteMembers(from old: AgentOutboxEntry, to new: AgentOutboxEntry) -> Bool {
            guard case .object(let was) = old.jsonValue, case .object(let now) = new.jsonValue else { return false }
            let changed = now.members.filter { was[$0.key] != $0.value }
            let dropped = was.members.filter { now[$0.key] == nil }.map { JSONValue.string($0.key) }
            let id = new.requestId
            let keys = changed.map(\.key)
            if dropped.isEmpty, keys == ["state"], new.state == .confirmed {
                confirmed.append(.string(id))
            } else if dropped.isEmpty, Set(keys) == ["state", "attempts"], new.state == .sending,
                let attempts = now["attempts"]
            {
                sent.append(JSONMember(id, attempts))
            } else if dropped.isEmpty, keys == ["state", "acknowledgement"], new.state == .awaitingEcho,
                let acknowledgement = new.acknowledgement
            {
                acknowledged.append(
                    JSONMember(
                        id,
                        .array([.string(acknowledgement.messageId), acknowledgement.cursor.jsonValue])))
            } else {
                if !changed.isEmpty { setting.append(JSONMember(id, .object(JSONObject(changed)))) }
                if !dropped.isEmpty { unsetting.append(JSONMember(id, .array(dropped))) }
            }
            return !changed.isEmpty || !dropped.isEmpty
        }
    }

    /// A record's bytes.
    private static func bytes(
        added: [AgentOutboxEntry], changes: Changes, removed: [String], retired: [String]?, claim: Claim?,
        encoded: (AgentOutboxEntry) -> [UInt8]
    ) -> [UInt8] {
        let writer = JSONWriter()
        var parts: [[UInt8]] = []
        if !added.isEmpty {
            var bytes = Array(#""add":["#.utf8)
            for (index, entry) in added.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += encoded(entry)
            }
            bytes.append(UInt8(ascii: "]"))
            parts.append(bytes)
        }
        if !changes.setting.isEmpty {
            parts.append(Array(#""set":"#.utf8) + writer.bytes(from: .object(JSONObject(changes.setting))))
        }
        if !changes.sent.isEmpty {
            parts.append(Array(#""send":"#.utf8) + writer.bytes(from: .object(JSONObject(changes.sent))))
        }
        if !changes.acknowledged.isEmpty {
            parts.append(Array(#""ack":"#.utf8) + writer.bytes(from: .object(JSONObject(changes.acknowledged))))
        }
        if !changes.confirmed.isEmpty {
            parts.append(Array(#""confirm":"#.utf8) + writer.bytes(from: .array(changes.confirmed)))
        }
        if !changes.unsetting.isEmpty {
            parts.append(Array(#""unset":"#.utf8) + writer.bytes(from: .object(JSONObject(changes.unsetting))))
        }
        if !removed.isEmpty {
            parts.append(Array(#""remove":"#.utf8) + writer.bytes(from: .array(removed.map { .string($0) })))
        }
        if let retired {
            parts.append(Array(#""retiredDraftIds":"#.utf8) + writer.bytes(from: .array(retired.map { .string($0) })))
        }
        switch claim {
        case .open(let boot)?: parts.append(Array(#""claim":"#.utf8) + writer.bytes(from: .string(boot)))
        case .close?: parts.append(Array(#""claim":null"#.utf8))
        case nil: break
        }
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, part) in parts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += part
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Whether two versions of an entry agree on everything ``AgentOutboxQueue`` changes after
    /// it queued the entry (its state, attempts, failure and acknowledgement).
    private static func sameProgress(_ lhs: AgentOutboxEntry, _ rhs: AgentOutboxEntry) -> Bool {
        lhs.state == rhs.state && lhs.attempts == rhs.attempts && lhs.failure == rhs.failure
            && lhs.acknowledgement == rhs.acknowledgement
    }

    /// The snapshot with `records` applied, as document bytes for
    /// ``AgentOutboxDocument/decode(_:)``, and the first record that could not be applied
    /// (the records before it are applied; it and those after it are not). A snapshot that
    /// is not a JSON object with an `entries` list is returned as it is, for the document's
    /// decoder to refuse.
    static func merge(snapshot: [UInt8]?, records: [[UInt8]]) -> (bytes: [UInt8], problem: JSONError?) {
        let merged = merged(snapshot: snapshot, records: records)
        return (merged.bytes, merged.problem)
    }

    /// ``merge(snapshot:records:)`` with the claim the applied records leave open.
    static func merged(snapshot: [UInt8]?, records: [[UInt8]]) -> Merged {
        let bytes = snapshot ?? []
        guard !records.isEmpty else { return Merged(bytes: bytes) }
        let reader = JSONReader(limits: JSONReader.Limits(maxDepth: 32, maxBytes: AgentOutboxDocument.maxBytes))
        guard case .object(var document)? = try? reader.parse(bytes),
            case .array(let items)? = document["entries"]
        else { return Merged(bytes: bytes) }
        // Entries without an id are kept as they are, for the document's decoder to report.
        var entries = Entries(
            items.map { item in
                guard case .object(let object) = item, case .string(let id)? = object["requestId"] else {
                    return (nil, item)
                }
                return (id, item)
            })
        var retired = document["retiredDraftIds"]
        var problem: JSONError?
        var claim: String?
        for (index, record) in records.enumerated() {
            let path = JSONPath.root.appending(key: "journal").appending(index: index)
            do throws(JSONError) {
                try apply(record, at: path, to: &entries, retired: &retired, claim: &claim, reader: reader)
            } catch {
                problem = error
                break
            }
        }
        for (index, member) in document.members.enumerated() {
            if member.key == "entries" { document.members[index].value = .array(entries.items.map(\.value)) }
            if member.key == "retiredDraftIds", let retired { document.members[index].value = retired }
        }
        return Merged(bytes: JSONWriter().bytes(from: .object(document)), problem: problem, claim: claim)
    }

    /// Whether `snapshot` already shows every change `records` make (what a compaction that
    /// stopped before removing the journal leaves: it wrote the records into the snapshot):
    /// entries the records remove are absent, entries they add or change hold the members the
    /// records gave them last and lack those they dropped, and the retired draft ids are the
    /// records' last list. No records: true. A record or snapshot that cannot be read: false
    /// (the caller cannot tell, and keeps the journal).
    static func isFolded(_ records: [[UInt8]], into snapshot: [UInt8]) -> Bool {
        guard !records.isEmpty else { return true }
        let reader = JSONReader(limits: JSONReader.Limits(maxDepth: 32, maxBytes: AgentOutboxDocument.maxBytes))
        // Per request id: the members the records leave (nil: dropped); nil entry: removed.
        var expected: [String: [String: JSONValue?]?] = [:]
        var retired: JSONValue?
        for record in records {
            guard case .object(let object)? = try? reader.parse(record) else { return false }
            // A change member of the wrong kind is a record ``merge(snapshot:records:)``
            // refuses: it cannot be counted as folded (skipping it would let the journal go).
            guard Self.changeKinds.allSatisfy({ key, isKind in object[key].map(isKind) ?? true }),
                object["claim"].map(isClaim) ?? true
            else { return false }
            if case .array(let removed)? = object["remove"] {
                for case .string(let id) in removed { expected[id] = .some(nil) }
            }
            if case .object(let set)? = object["set"] {
                for member in set.members {
                    guard case .object(let fields) = member.value else { return false }
                    var entry = (expected[member.key] ?? nil) ?? [:]
                    for field in fields.members { entry[field.key] = .some(field.value) }
                    expected[member.key] = .some(entry)
                }
            }
            for (id, fields) in shortForms(object) {
                guard let fields else { return false }
                var entry = (expected[id] ?? nil) ?? [:]
                for field in fields.members { entry[field.key] = .some(field.value) }
                expected[id] = .some(entry)
            }
            if case .object(let unset)? = object["unset"] {
                for member in unset.members {
                    guard case .array(let keys) = member.value else { return false }
                    var entry = (expected[member.key] ?? nil) ?? [:]
                    for case .string(let key) in keys { entry[key] = .some(nil) }
                    expected[member.key] = .some(entry)
                }
            }
            if case .array(let added)? = object["add"] {
                for item in added {
                    guard case .object(let entry) = item, case .string(let id)? = entry["requestId"] else {
                        return false
                    }
                    var fields: [String: JSONValue?] = [:]
                    for field in entry.members { fields[field.key] = .some(field.value) }
                    expected[id] = .some(fields)
                }
            }
            if let ids = object["retiredDraftIds"] { retired = ids }
        }
        guard case .object(let document)? = try? reader.parse(snapshot), case .array(let items)? = document["entries"]
        else { return false }
        var present: [String: JSONObject] = [:]
        for case .object(let entry) in items {
            if case .string(let id)? = entry["requestId"] { present[id] = entry }
        }
        for (id, fields) in expected {
            guard let fields else {
                if present[id] != nil { return false }
                continue
            }
            guard let entry = present[id] else { return false }
            for (key, value) in fields where entry[key] != value { return false }
        }
        if let retired, document["retiredDraftIds"] != retired { return false }
        return true
    }

    /// The entries while records are applied, with their positions by request id.
    private struct Entries {
        var items: [(id: String?, value: JSONValue)]
        var positions: [String: Int] = [:]

        init(_ items: [(id: String?, value: JSONValue)]) {
            self.items = items
            reindex()
        }

        mutating func reindex() {
            positions = [:]
            for (position, item) in items.enumerated() {
                if let id = item.id { positions[id] = position }
            }
        }

        func position(_ id: String, _ path: JSONPath) throws(JSONError) -> Int {
            guard let position = positions[id] else {
                throw .contract(path, "names the entry \(JSONWriter.quoted(id)), which is not in the outbox")
            }
            return position
        }

        mutating func update(_ position: Int, _ change: (inout JSONObject) -> Void) {
            guard case .object(var object) = items[position].value else { return }
            change(&object)
            items[position].value = .object(object)
        }
    }

    /// Applies one record.
    private static func apply(
        _ record: [UInt8], at path: JSONPath, to entries: inout Entries, retired: inout JSONValue?,
        claim: inout String?, reader: JSONReader
    ) throws(JSONError) {
        let value = try reader.parse(record)
        let object = try JSONObjectReader(value, at: path)
        try object.rejectUnknownKeys(keys)
        var claimAfter = claim
        // (`null` closes a claim: read the member itself, not as an optional value.)
        if case .object(let members) = value, let value = members["claim"] {
            guard isClaim(value) else {
                throw .contract(
                    path.appending(key: "claim"),
                    "must be a boot id (1–\(maxClaimBytes) bytes) or null, got \(value.kindDescription)")
            }
            if case .string(let boot) = value { claimAfter = boot } else { claimAfter = nil }
        }
        if let removed = object.optionalValue("remove") {
            var gone = Set<Int>()
            for (offset, item) in try list(removed, at: path.appending(key: "remove")).enumerated() {
                let at = path.appending(key: "remove").appending(index: offset)
                gone.insert(try entries.position(try JSONValueReader.string(item, at: at), at))
            }
            entries.items = entries.items.enumerated().filter { !gone.contains($0.offset) }.map(\.element)
            entries.reindex()
        }
        for (change, at) in try members(object.optionalValue("set"), at: path.appending(key: "set")) {
            let target = try entries.position(change.key, at)
            let fields = try JSONObjectReader(change.value, at: at)
            try fields.rejectUnknownKeys(AgentOutboxEntry.keys.filter { $0 != "requestId" })
            guard case .object(let updates) = change.value else { continue }
            entries.update(target) { $0.set(updates) }
        }
        for (change, at) in try members(object.optionalValue("send"), at: path.appending(key: "send")) {
            let target = try entries.position(change.key, at)
            guard let fields = sendFields(change.value) else { throw .contract(at, "must be the attempts, a number") }
            entries.update(target) { $0.set(fields) }
        }
        for (change, at) in try members(object.optionalValue("ack"), at: path.appending(key: "ack")) {
            let target = try entries.position(change.key, at)
            guard let fields = ackFields(change.value) else {
                throw .contract(at, "must be [message id, cursor], two strings")
            }
            entries.update(target) { $0.set(fields) }
        }
        if let confirmed = object.optionalValue("confirm") {
            for (offset, item) in try list(confirmed, at: path.appending(key: "confirm")).enumerated() {
                let at = path.appending(key: "confirm").appending(index: offset)
                let target = try entries.position(try JSONValueReader.string(item, at: at), at)
                entries.update(target) { $0.set(confirmFields) }
            }
        }
        for (change, at) in try members(object.optionalValue("unset"), at: path.appending(key: "unset")) {
            let target = try entries.position(change.key, at)
            var keys: [String] = []
            for (offset, item) in try list(change.value, at: at).enumerated() {
                let key = try JSONValueReader.string(item, at: at.appending(index: offset))
                guard ["draftId", "failure", "acknowledgement"].contains(key) else {
                    throw .contract(at.appending(index: offset), "\(JSONWriter.quoted(key)) cannot be removed")
                }
                keys.append(key)
            }
            entries.update(target) { object in object.members.removeAll { keys.contains($0.key) } }
        }
        if let added = object.optionalValue("add") {
            for (offset, item) in try list(added, at: path.appending(key: "add")).enumerated() {
                let at = path.appending(key: "add").appending(index: offset)
                let id = try JSONObjectReader(item, at: at).nonEmptyString("requestId")
                guard entries.positions[id] == nil else {
                    throw .contract(at.appending(key: "requestId"), "\(JSONWriter.quoted(id)) is already in the outbox")
                }
                entries.positions[id] = entries.items.count
                entries.items.append((id, item))
            }
        }
        if let ids = object.optionalValue("retiredDraftIds") {
            _ = try list(ids, at: path.appending(key: "retiredDraftIds"))
            retired = ids
        }
        claim = claimAfter
    }

    /// The members a `send` value (the attempts) sets, or `nil` when it is not a number (its
    /// range is checked with the entry, once every record is applied).
    private static func sendFields(_ value: JSONValue) -> JSONObject? {
        guard case .number = value else { return nil }
        return JSONObject([
            JSONMember("state", .string(AgentOutboxEntry.State.sending.rawValue)), JSONMember("attempts", value),
        ])
    }

    /// The members an `ack` value (`[message id, cursor]`) sets, or `nil` when it is not two
    /// strings.
    private static func ackFields(_ value: JSONValue) -> JSONObject? {
        guard case .array(let items) = value, items.count == 2, case .string = items[0], case .string = items[1]
        else { return nil }
        return JSONObject([
            JSONMember("state", .string(AgentOutboxEntry.State.awaitingEcho.rawValue)),
            JSONMember(
                "acknowledgement",
                .object(JSONObject([JSONMember("messageId", items[0]), JSONMember("cursor", items[1])]))),
        ])
    }

    /// The change members a record may hold and the kind each must have.
    private static let changeKinds: [(String, @Sendable (JSONValue) -> Bool)] = [
        ("remove", { if case .array = $0 { true } else { false } }),
        ("set", { if case .object = $0 { true } else { false } }),
        ("send", { if case .object = $0 { true } else { false } }),
        ("ack", { if case .object = $0 { true } else { false } }),
        ("confirm", { if case .array = $0 { true } else { false } }),
        ("unset", { if case .object = $0 { true } else { false } }),
        ("add", { if case .array = $0 { true } else { false } }),
    ]

    /// Whether `value` is what a `claim` member may hold: a boot id or `null`.
    static func isClaim(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .string(let boot): !boot.isEmpty && boot.utf8.count <= maxClaimBytes
        default: false
        }
    }

    /// The members a `confirm` sets.
    private static let confirmFields = JSONObject([
        JSONMember("state", .string(AgentOutboxEntry.State.confirmed.rawValue))
    ])

    /// The members the short forms of `record` (`send`, `ack`, `confirm`) set, by request id;
    /// `nil` members when a value cannot be read.
    private static func shortForms(_ record: JSONObject) -> [(String, JSONObject?)] {
        var forms: [(String, JSONObject?)] = []
        if case .object(let sent)? = record["send"] {
            forms += sent.members.map { ($0.key, sendFields($0.value)) }
        }
        if case .object(let acknowledged)? = record["ack"] {
            forms += acknowledged.members.map { ($0.key, ackFields($0.value)) }
        }
        if case .array(let confirmed)? = record["confirm"] {
            for item in confirmed {
                guard case .string(let id) = item else { return [("", nil)] }
                forms.append((id, confirmFields))
            }
        }
        return forms
    }

    private static func list(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> [JSONValue] {
        guard case .array(let items) = value else {
            throw .contract(path, "must be an array, got \(value.kindDescription)")
        }
        return items
    }

    /// The members of an optional object (checked for duplicate names), each with its path.
    private static func members(_ value: JSONValue?, at path: JSONPath) throws(JSONError) -> [(JSONMember, JSONPath)] {
        guard let value else { return [] }
        _ = try JSONObjectReader(value, at: path)
        guard case .object(let object) = value else { return [] }
        return object.members.map { ($0, path.appending(key: $0.key)) }
    }
}

extension JSONObject {
    /// Replaces the members named in `updates`, appending those it lacks.
    fileprivate mutating func set(_ updates: JSONObject) {
        for update in updates.members {
            if let existing = members.firstIndex(where: { $0.key == update.key }) {
                members[existing].value = update.value
            } else {
                members.append(update)
            }
        }
    }
}

import SybilCore
import SybilWire
import Testing

/// The records contract (docs/api/records.md): every member's rule is tested at its
/// boundaries, one either side; unknown members are ignored; a missing or wrong-typed member
/// fails with its path.
@Suite("Records contract", .timeLimit(.minutes(2)))
struct RecordContractTests {
    static let id = "1b4e28ba-2fa1-4d2e-883f-0016d3cca427"

    /// A valid record of `kind` with `changes` applied (`nil` removes a member).
    static func json(_ kind: String, _ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("id", .string(id)), JSONMember("kind", .string(kind)),
            JSONMember("createdAt", 1_800_000_000_000),
        ]
        switch kind {
        case "user": members.append(JSONMember("displayName", "Ana"))
        case "mood": members.append(JSONMember("score", 4))
        case "breathing":
            members.append(JSONMember("durationSeconds", 60))
            members.append(JSONMember("cycles", 6))
        default: members.append(JSONMember("durationSeconds", 600))
        }
        for (key, value) in changes {
            members.removeAll { $0.key == key }
            if let value { members.append(JSONMember(key, value)) }
        }
        return .object(JSONObject(members))
    }

    private func decode(_ value: JSONValue) throws -> Record { try Record.decode(value, at: .root) }

    private func integerBoundary(
        _ kind: String, _ key: String, _ range: ClosedRange<Int64>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: Never.self, sourceLocation: sourceLocation) {
            _ = try decode(Self.json(kind, [key: .number(JSONNumber(range.lowerBound))]))
            _ = try decode(Self.json(kind, [key: .number(JSONNumber(range.upperBound))]))
        }
        for outside in [range.lowerBound - 1, range.upperBound + 1] {
            expectContractRejection(at: "\(key)", "outside", sourceLocation: sourceLocation) {
                try decode(Self.json(kind, [key: .number(JSONNumber(outside))]))
            }
        }
        expectContractRejection(at: "\(key)", "required member is missing", sourceLocation: sourceLocation) {
            try decode(Self.json(kind, [key: nil]))
        }
        expectContractRejection(at: "\(key)", "expected an integer", sourceLocation: sourceLocation) {
            try decode(Self.json(kind, [key: "4"]))
        }
        expectContractRejection(at: "\(key)", "without fraction", sourceLocation: sourceLocation) {
            try decode(Self.json(kind, [key: .number(JSONNumber(2.5)!)]))
        }
    }

    @Test func everyKindRoundTripsInContractOrder() throws {
        for kind in Record.Kind.allCases {
            let value = Self.json(kind.rawValue)
            let record = try decode(value)
            #expect(record.kind == kind)
            #expect(record.jsonValue == value)
            #expect(try decode(record.jsonValue) == record)
        }
        let noted = try decode(Self.json("mood", ["note": "slept well"]))
        #expect(noted.payload == .mood(score: 4, note: "slept well"))
        #expect(try decode(noted.jsonValue) == noted)
    }

    @Test func unknownMembersAndOtherKindsMembersAreIgnored() throws {
        let record = try decode(Self.json("mood", ["mood2": ["x": 1], "durationSeconds": "not read"]))
        #expect(record.canonicalJSON == (try decode(Self.json("mood"))).canonicalJSON)
    }

    @Test func idMustBeALowercaseUUID() {
        for bad in [
            "", "1B4E28BA-2FA1-4D2E-883F-0016D3CCA427", "1b4e28ba-2fa1-4d2e-883f-0016d3cca42",
            "1b4e28ba-2fa1-4d2e-883f-0016d3cca4270", "1b4e28ba2fa1-4d2e-883f-0016d3cca427-",
            "1b4e28ba-2fa1-4d2e-883f-0016d3cca42g",
        ] {
            expectContractRejection(at: "id", "lowercase UUID") { try decode(Self.json("mood", ["id": .string(bad)])) }
        }
        expectContractRejection(at: "id", "expected a string") { try decode(Self.json("mood", ["id": 7])) }
        expectContractRejection(at: "id", "missing") { try decode(Self.json("mood", ["id": nil])) }
    }

    @Test func kindMustBeKnown() {
        expectContractRejection(at: "kind", "must be one of") { try decode(Self.json("mood", ["kind": "sleep"])) }
        expectContractRejection(at: "kind", "missing") { try decode(Self.json("mood", ["kind": nil])) }
        expectContractRejection(at: "kind", "expected a string") { try decode(Self.json("mood", ["kind": 1])) }
    }

    @Test func integerMembersAreCheckedAtTheirBoundaries() {
        integerBoundary("mood", "createdAt", Record.createdAtRange)
        integerBoundary("mood", "score", 1...5)
        integerBoundary("breathing", "durationSeconds", 1...86_400)
        integerBoundary("breathing", "cycles", 0...10_000)
        integerBoundary("meditation", "durationSeconds", 1...86_400)
        #expect(Record.createdAtRange == 0...253_402_300_799_999)
    }

    @Test func noteIsAtMostOneThousandBytesOfUTF8() throws {
        let fits = String(repeating: "a", count: 997) + "好"  // 1,000 bytes
        #expect(try decode(Self.json("mood", ["note": .string(fits)])).payload == .mood(score: 4, note: fits))
        expectContractRejection(at: "note", "at most 1000 bytes") {
            try decode(Self.json("mood", ["note": .string(fits + "a")]))
        }
        expectContractRejection(at: "note", "expected a string") { try decode(Self.json("mood", ["note": 5])) }
        #expect(try decode(Self.json("mood", ["note": .null])).payload == .mood(score: 4, note: nil))
    }

    @Test func displayNameHasOneToOneHundredCharacters() throws {
        let hundred = String(repeating: "名", count: 100)
        #expect(try decode(Self.json("user", ["displayName": .string(hundred)])).payload == .user(displayName: hundred))
        #expect(try decode(Self.json("user", ["displayName": "A"])).payload == .user(displayName: "A"))
        expectContractRejection(at: "displayName", "1…100 characters, got 101") {
            try decode(Self.json("user", ["displayName": .string(hundred + "x")]))
        }
        expectContractRejection(at: "displayName", "1…100 characters, got 0") {
            try decode(Self.json("user", ["displayName": ""]))
        }
        expectContractRejection(at: "displayName", "blank") { try decode(Self.json("user", ["displayName": "  "])) }
        // One character built of many combining marks is bounded by bytes.
        let heavy = "e" + String(repeating: "\u{301}", count: 500)
        expectContractRejection(at: "displayName", "at most 1000 bytes") {
            try decode(Self.json("user", ["displayName": .string(heavy)]))
        }
        expectContractRejection(at: "displayName", "missing") { try decode(Self.json("user", ["displayName": nil])) }
    }

    @Test func codeBuiltRecordsPassTheSameRules() throws {
        let made = try Record(id: Self.id, createdAt: 5, payload: .breathing(durationSeconds: 86_400, cycles: 0))
        #expect(try decode(made.jsonValue) == made)
        expectContractRejection(at: "score", "outside") {
            try Record(id: Self.id, createdAt: 5, payload: .mood(score: 6, note: nil))
        }
        expectContractRejection(at: "cycles", "outside") {
            try Record(id: Self.id, createdAt: 5, payload: .breathing(durationSeconds: 5, cycles: 10_001))
        }
        expectContractRejection(at: "durationSeconds", "outside") {
            try Record(id: Self.id, createdAt: 5, payload: .meditation(durationSeconds: 0))
        }
        expectContractRejection(at: "createdAt", "outside") {
            try Record(id: Self.id, createdAt: -1, payload: .meditation(durationSeconds: 1))
        }
        expectContractRejection(at: "id", "UUID") {
            try Record(id: "x", createdAt: 1, payload: .meditation(durationSeconds: 1))
        }
    }

    @Test func theNewestProfileWinsAndTiesGoToTheLargerID() throws {
        let older = try Record(id: Self.id, createdAt: 10, payload: .user(displayName: "Old"))
        let newer = try Record(
            id: "00000000-0000-4000-8000-000000000000", createdAt: 11, payload: .user(displayName: "New"))
        #expect(newer.isNewerProfile(than: older))
        #expect(!older.isNewerProfile(than: newer))
        let tie = try Record(
            id: "ffffffff-0000-4000-8000-000000000000", createdAt: 10, payload: .user(displayName: "T"))
        #expect(tie.isNewerProfile(than: older))
        #expect(!older.isNewerProfile(than: tie))
    }
}

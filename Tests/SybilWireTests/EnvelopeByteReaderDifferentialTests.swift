import Foundation
import SybilCore
import Testing

@testable import SybilWire

/// The envelope's byte reader (``WorkspaceChatLoadEnvelope/readingBytes(_:limits:)``) held to
/// the tree decoder (``JSONReader`` then ``WorkspaceChatLoadEnvelope/decode(_:at:)``), the
/// reference: on every document the byte reader accepts only what the tree accepts and gives
/// the same envelope, and ``WorkspaceChatLoadEnvelope/decode(json:limits:)`` gives the tree's
/// envelope or the tree's error, path and offset included.
@Suite("Envelope byte reader vs the tree decoder", .timeLimit(.minutes(2)))
struct EnvelopeByteReaderDifferentialTests {
    typealias Step = JSONEdit.Step

    /// What the byte reader did with a document the tree accepted.
    enum Agreement: Equatable {
        case bothRefused
        case bothAccepted
        /// The tree accepted, the byte reader refused (the tree then decodes it).
        case treeOnly
    }

    @discardableResult
    private func agree(
        _ bytes: [UInt8], limits: JSONReader.Limits = .standard, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Agreement {
        let tree: Result<WorkspaceChatLoadEnvelope, JSONError>
        do {
            tree = .success(
                try WorkspaceChatLoadEnvelope.decode(try JSONReader(limits: limits).parse(bytes), at: .root))
        } catch {
            tree = .failure(error)
        }
        let fast = WorkspaceChatLoadEnvelope.readingBytes(bytes, limits: limits)
        let combined: Result<WorkspaceChatLoadEnvelope, JSONError>
        do {
            combined = .success(try WorkspaceChatLoadEnvelope.decode(json: bytes, limits: limits))
        } catch {
            combined = .failure(error)
        }
        let shown = String(decoding: bytes.prefix(300), as: UTF8.self)
        #expect(
            combined == tree, "decode(json:) differs from the tree decoder on \(shown)", sourceLocation: sourceLocation)
        switch tree {
        case .failure(let error):
            #expect(
                fast == nil, "the byte reader accepted what the tree refuses (\(error)): \(shown)",
                sourceLocation: sourceLocation)
            return .bothRefused
        case .success(let envelope):
            guard let fast else { return .treeOnly }
            #expect(
                fast == envelope, "the byte reader decoded a different envelope from \(shown)",
                sourceLocation: sourceLocation)
            return .bothAccepted
        }
    }

    private func bytes(_ value: JSONValue) -> [UInt8] {
        JSONWriter().bytes(from: value)
    }

    /// Every path to a value in `value`, the root excepted, outermost first.
    private func paths(in value: JSONValue, prefix: [Step] = []) -> [[Step]] {
        var found: [[Step]] = []
        switch value {
        case .object(let object):
            for member in object.members {
                let path = prefix + [.key(member.key)]
                found.append(path)
                found += paths(in: member.value, prefix: path)
            }
        case .array(let elements):
            for (position, element) in elements.enumerated() {
                let path = prefix + [.index(position)]
                found.append(path)
                found += paths(in: element, prefix: path)
            }
        default: break
        }
        return found
    }

    // MARK: Documents both accept

    @Test func theValidFixtureIsReadFromItsBytes() {
        #expect(agree(Array(EnvelopeFixture.validText.utf8)) == .bothAccepted)
        #expect(agree(bytes(EnvelopeFixture.valid)) == .bothAccepted)
    }

    @Test func validVariantsAreReadFromTheirBytes() {
        var nulls = EnvelopeFixture.valid
        for key in ["codexSessionId", "runtime", "activeRun"] { JSONEdit.set(&nulls, [.key(key)], to: .null) }
        JSONEdit.set(&nulls, [.key("hasOlderEntries")], to: false)
        JSONEdit.set(&nulls, [.key("oldestCursor")], to: .null)
        var emptyOverlay = EnvelopeFixture.valid
        JSONEdit.set(&emptyOverlay, [.key("liveOverlay"), .key("revision")], to: 0)
        JSONEdit.set(&emptyOverlay, [.key("liveOverlay"), .key("blocks")], to: [])
        var unusual = EnvelopeFixture.valid
        JSONEdit.set(&unusual, [.key("timeline"), .index(0), .key("text")], to: "tab\t\"quote\" é 😀 \u{212A} \u{0}")
        JSONEdit.set(&unusual, [.key("timeline"), .index(0), .key("runId")], to: .null)
        JSONEdit.set(&unusual, [.key("timeline"), .index(1), .key("subagentThreadId")], to: "thread-1")
        JSONEdit.set(
            &unusual, [.key("timeline"), .index(1), .key("sourceOrder")],
            to: [0, JSONEdit.number("18446744073709551615")])
        JSONEdit.set(
            &unusual, [.key("timeline"), .index(2), .key("timestamp")], to: JSONEdit.number("-9223372036854775808"))
        JSONEdit.set(&unusual, [.key("loadState")], to: ["state": "unavailable", "reason": "asleep"])
        JSONEdit.set(&unusual, [.key("runtime")], to: ["a": [1, JSONEdit.number("2.5"), ["b": nil]], "c": "\u{1}"])
        for value in [nulls, emptyOverlay, unusual] {
            #expect(agree(bytes(value)) == .bothAccepted)
        }
        // White space everywhere it may stand, and names written with escapes.
        let spaced = JSONWriter().string(from: EnvelopeFixture.valid)
            .replacingOccurrences(of: ",", with: " \n,\t ")
            .replacingOccurrences(of: ":", with: "\r : ")
            .replacingOccurrences(of: "[", with: "[ ")
        #expect(agree(Array(("\n " + spaced + " \n").utf8)) == .bothAccepted)
        let escapedNames = EnvelopeFixture.validText
            .replacingOccurrences(of: #""type""#, with: #""\u0074ype""#)
            .replacingOccurrences(of: #""timeline""#, with: #""time\u006Cine""#)
            .replacingOccurrences(of: #""id": "row-2""#, with: #""id": "row\u002D2""#)
        #expect(agree(Array(escapedNames.utf8)) == .bothAccepted)
    }

    @Test func aLargeGeneratedWindowIsReadFromItsBytes() {
        let rows: [JSONValue] = (0..<500).map { index in
            [
                "type": .string(TimelineRowType.allCases[index % 5].rawValue), "id": .string("row-\(index)"),
                "origin": "canonical", "sourceOrder": [.number(JSONNumber(Int64(index))), 0],
                "timestamp": .number(JSONNumber(Int64(1_764_000_000_000 + index))),
                "text": .string("Row \(index): the agent read Sources/App/Feature\(index % 40).swift."),
            ]
        }
        let value = JSONEdit.setting(EnvelopeFixture.valid, [.key("timeline")], to: .array(rows))
        #expect(agree(bytes(value)) == .bothAccepted)
    }

    // MARK: Generated mutations

    @Test func everyTruncationAgrees() {
        let full = Array(EnvelopeFixture.validText.utf8)
        for length in 0..<full.count {
            agree(Array(full[..<length]))
        }
    }

    @Test func typeSwapsAndHugeNumbersAtEveryPathAgree() {
        let replacements: [JSONValue] = [
            .null, true, false, 0, -1, "", "x", " ", [], [:], [0], ["runId": "r"],
            JSONEdit.number("-0"), JSONEdit.number("1.5"), JSONEdit.number("1e3"), JSONEdit.number("1E-2"),
            JSONEdit.number("9007199254740992"), JSONEdit.number("-9223372036854775809"),
            JSONEdit.number("18446744073709551616"), JSONEdit.number("99999999999999999999999999"),
            JSONEdit.number("1e400"), "live", "canonical", "user", "agent-reply", "\u{212A}",
        ]
        let valid = EnvelopeFixture.valid
        var outcomes: [Agreement] = []
        for path in paths(in: valid) {
            for replacement in replacements {
                outcomes.append(agree(bytes(JSONEdit.setting(valid, path, to: replacement))))
            }
            outcomes.append(agree(bytes(JSONEdit.setting(valid, path, to: nil))))
        }
        // Every refusal was checked above; the tree accepts some swaps (a null optional, ...).
        #expect(outcomes.contains(.bothRefused) && outcomes.contains(.bothAccepted))
    }

    @Test func extraAndRepeatedMembersAgree() {
        let valid = EnvelopeFixture.valid
        for path in [[], [.key("liveOverlay")], [.key("timeline"), .index(1)], [.key("loadState")], [.key("runtime")]]
            as [[Step]]
        {
            agree(bytes(JSONEdit.setting(valid, path + [.key("extra")], to: 1)))
        }
        let text = EnvelopeFixture.validText
        for (target, doubled) in [
            (#""id": "row-2","#, #""id": "row-2", "id": "row-2","#),
            (#""id": "row-2","#, #""id": "row-2", "\u0069d": "row-2","#),
            (#""revision": 2,"#, #""revision": 2, "revision": 2,"#),
            (#""boundaryToken": "b-17","#, #""boundaryToken": "b-17", "boundaryToken": "b-17","#),
            (#""state": "ready""#, #""state": "ready", "state": "ready""#),
            (#""model": "m""#, #""model": "m", "model": "n""#),
            (#""runId": "run-9", "startedAt""#, #""runId": "run-9", "runId": "run-9", "startedAt""#),
            (#""text": "Hi""#, #""text": "Hi", "te\u212Axt": 1"#),
        ] {
            agree(Array(text.replacingFirst(target, with: doubled).utf8))
        }
    }

    @Test func deepNestingAndLimitsAgree() {
        let valid = EnvelopeFixture.valid
        for depth in [100, 509, 510, 511, 512, 513, 600] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let text = EnvelopeFixture.validText.replacingFirst(#"{"model": "m"}"#, with: #"{"m": \#(nested)}"#)
            agree(Array(text.utf8))
            let inRunId = EnvelopeFixture.validText.replacingFirst(
                #""startedAt": 1764400000250"#, with: #""x": \#(nested)"#)
            agree(Array(inRunId.utf8))
        }
        let fixture = bytes(valid)
        for maxDepth in 1...7 {
            agree(fixture, limits: JSONReader.Limits(maxDepth: maxDepth))
        }
        for maxBytes in [1, fixture.count - 1, fixture.count] {
            agree(fixture, limits: JSONReader.Limits(maxBytes: maxBytes))
        }
    }

    @Test func seededByteMutationsAgree() {
        var random = SplitMix64(seed: 0x5EED_0030)
        let original = Array(EnvelopeFixture.validText.utf8)
        let interesting =
            Array(#"{}[],:"\ 0123456789-.eE+tfnul"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF4, 0xFF]
        var outcomes: [Agreement] = []
        for _ in 0..<3_000 {
            var mutated = original
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let position = Int(random.next() % UInt64(mutated.count))
                let byte = interesting[Int(random.next() % UInt64(interesting.count))]
                switch random.next() % 3 {
                case 0: mutated[position] = byte
                case 1: mutated.insert(byte, at: position)
                default: mutated.remove(at: position)
                }
            }
            outcomes.append(agree(mutated))
        }
        #expect(outcomes.contains(.bothRefused) && outcomes.contains(.bothAccepted))
    }

    @Test func theFuzzCorporaAgree() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fuzz/corpus")
        var count = 0
        for target in ["envelope", "json"] {
            let directory = root.appendingPathComponent(target)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            for name in names {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                agree(Array(data))
                count += 1
            }
        }
        #expect(count > 0)
    }
}

/// A small deterministic generator for the mutations (no wall clock, same documents each run).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

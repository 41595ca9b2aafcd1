import SybilCore
import SybilWire
import Testing

/// The Agent room's contract types (docs/api/agent-room.md): each decodes what it encodes,
/// each rule rejects with the path of the member that breaks it, and the capability is read
/// leniently (text-only) where the seed says so.
@Suite("Agent room contract", .timeLimit(.minutes(2)))
struct AgentRoomContractTests {
    static let sha = String(repeating: "0123456789abcdef", count: 4)

    private func expectRejection<T>(
        at path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ decode: () throws -> T
    ) {
        expectContractRejection(at: path, fragment, sourceLocation: sourceLocation, decode)
    }

    private func set(_ value: JSONValue, _ steps: [JSONEdit.Step], _ newValue: JSONValue?) -> JSONValue {
        Self.set(value, steps, newValue)
    }

    static func cursor(_ text: String) -> AgentCursor { AgentCursor(text)! }

    static let attachment: JSONValue = [
        "uploadId": "u-1", "fileName": ".env.sample", "mimeType": "text/plain", "size": 18_342, "sha256": .string(sha),
        "workspacePath": "uploads/.env.sample",
    ]

    static let message: JSONValue = [
        "messageId": "msg-7", "cursor": "c-000000007", "requestId": "r-1", "role": "user", "visibility": "public",
        "text": "Summarise the build failures.", "createdAt": 1_764_400_200_000,
        "metadata": ["agentAttachments": [attachment], "other": ["ignored": true]],
    ]

    // MARK: Cursors

    @Test func cursorsOrderByLengthThenText() {
        #expect(Self.cursor("c-000000009") < Self.cursor("c-000000010"))
        #expect(Self.cursor("c-999999999") < Self.cursor("c-1000000000"))
        #expect(!(Self.cursor("c-000000010") < Self.cursor("c-000000010")))
        #expect(AgentCursor("") == nil)
        #expect(AgentCursor("c 1") == nil)
        #expect(AgentCursor(String(repeating: "c", count: 128)) != nil)
        #expect(AgentCursor(String(repeating: "c", count: 129)) == nil)
    }

    // MARK: Messages

    @Test func messageRoundTripsAndIgnoresOtherMetadata() throws {
        let message = try AgentRoomMessage.decode(Self.message, at: .root)
        #expect(message.requestId == "r-1")
        #expect(message.attachments.map(\.fileName) == [".env.sample"])
        #expect(message.attachments.first?.workspacePath == "uploads/.env.sample")
        let again = try AgentRoomMessage.decode(message.jsonValue, at: .root)
        #expect(again == message)
    }

    @Test func messageRulesNameTheMember() {
        expectRejection(at: "role", "must be one of") {
            try AgentRoomMessage.decode(set(Self.message, [.key("role")], "robot"), at: .root)
        }
        expectRejection(at: "visibility", "must be one of") {
            try AgentRoomMessage.decode(set(Self.message, [.key("visibility")], "secret"), at: .root)
        }
        expectRejection(at: "extra", "unexpected member") {
            try AgentRoomMessage.decode(set(Self.message, [.key("extra")], 1), at: .root)
        }
        expectRejection(at: "createdAt", "outside") {
            try AgentRoomMessage.decode(set(Self.message, [.key("createdAt")], -1), at: .root)
        }
        expectRejection(at: "metadata", "expected an object") {
            try AgentRoomMessage.decode(set(Self.message, [.key("metadata")], "x"), at: .root)
        }
        expectRejection(at: "metadata.agentAttachments[0].sha256", "64 lowercase hex") {
            try AgentRoomMessage.decode(
                set(
                    Self.message, [.key("metadata"), .key("agentAttachments"), .index(0), .key("sha256")],
                    .string(Self.sha.uppercased())), at: .root)
        }
        expectRejection(at: "metadata.agentAttachments[0].size", "outside") {
            try AgentRoomMessage.decode(
                set(
                    Self.message, [.key("metadata"), .key("agentAttachments"), .index(0), .key("size")],
                    9_007_199_254_740_992), at: .root)
        }
        expectRejection(at: "cursor", "visible ASCII") {
            try AgentRoomMessage.decode(set(Self.message, [.key("cursor")], ""), at: .root)
        }
    }

    @Test(arguments: AgentRoomMessage.Role.allCases)
    func onlyPublicNonToolMessagesShowAndOnlyPublicAssistantRepliesCount(role: AgentRoomMessage.Role) throws {
        for visibility in AgentRoomMessage.Visibility.allCases {
            var message = try AgentRoomMessage.decode(Self.message, at: .root)
            message.role = role
            message.visibility = visibility
            #expect(message.isVisible == (visibility == .public && role != .tool))
            #expect(message.countsAsUnread == (visibility == .public && role == .assistant))
        }
    }

    // MARK: Pages

    static func page(_ cursors: [String], next: JSONValue? = nil) -> JSONValue {
        let messages: [JSONValue] = cursors.enumerated().map { index, cursor in
            set(set(message, [.key("cursor")], .string(cursor)), [.key("messageId")], .string("msg-\(index)"))
        }
        return [
            "messages": .array(messages), "nextCursor": next ?? cursors.last.map { .string($0) } ?? .null,
            "hasMoreBefore": false,
        ]
    }

    private static func set(_ value: JSONValue, _ steps: [JSONEdit.Step], _ newValue: JSONValue?) -> JSONValue {
        JSONEdit.setting(value, steps, to: newValue)
    }

    @Test func pagesAreAscendingWithDistinctIdsAndANextCursorNotBehind() throws {
        let page = try AgentRoomPage.decode(Self.page(["c-000000001", "c-000000002"]), at: .root)
        #expect(page.nextCursor == Self.cursor("c-000000002"))
        #expect(try AgentRoomPage.decode(page.jsonValue, at: .root) == page)
        #expect(try AgentRoomPage.decode(Self.page([]), at: .root).nextCursor == nil)
        expectRejection(at: "messages[1].cursor", "ascending") {
            try AgentRoomPage.decode(Self.page(["c-000000002", "c-000000001"]), at: .root)
        }
        expectRejection(at: "messages[1].cursor", "ascending") {
            try AgentRoomPage.decode(Self.page(["c-000000002", "c-000000002"]), at: .root)
        }
        let duplicate = set(
            Self.page(["c-000000001", "c-000000002"]), [.key("messages"), .index(1), .key("messageId")], "msg-0")
        expectRejection(at: "messages[1].messageId", "appears twice") { try AgentRoomPage.decode(duplicate, at: .root) }
        expectRejection(at: "nextCursor", "older than") {
            try AgentRoomPage.decode(Self.page(["c-000000002"], next: "c-000000001"), at: .root)
        }
        expectRejection(at: "hasMoreBefore", "required member is missing") {
            try AgentRoomPage.decode(set(Self.page([]), [.key("hasMoreBefore")], nil), at: .root)
        }
    }

    // MARK: Submissions and receipts

    static let submission: JSONValue = [
        "requestId": "r-1", "text": "hi", "createdAt": 1_764_400_200_000, "attachments": ["u-1", "u-2"],
    ]

    @Test func submissionsAllowBlankTextOnlyWithAttachments() throws {
        let decoded = try AgentRoomSubmission.decode(Self.submission, at: .root)
        #expect(decoded.attachments == ["u-1", "u-2"])
        #expect(try AgentRoomSubmission.decode(decoded.jsonValue, at: .root) == decoded)
        #expect(try AgentRoomSubmission.decode(set(Self.submission, [.key("text")], " "), at: .root).text == " ")
        let textOnly = set(set(Self.submission, [.key("attachments")], nil), [.key("text")], " \n")
        expectRejection(at: "text", "must not be blank") { try AgentRoomSubmission.decode(textOnly, at: .root) }
        expectRejection(at: "attachments[1]", "listed twice") {
            try AgentRoomSubmission.decode(set(Self.submission, [.key("attachments")], ["u-1", "u-1"]), at: .root)
        }
        expectRejection(at: "requestId", "non-empty") {
            try AgentRoomSubmission.decode(set(Self.submission, [.key("requestId")], ""), at: .root)
        }
    }

    @Test func submissionTextHoldsAtMost128KiBOfUTF8() throws {
        let limit = AgentRoomSubmission.maxTextBytes
        #expect(limit == 131_072)
        let full = String(repeating: "é", count: limit / 2)
        #expect(
            try AgentRoomSubmission.decode(set(Self.submission, [.key("text")], .string(full)), at: .root).text == full)
        expectRejection(at: "text", "at most 131072 bytes") {
            try AgentRoomSubmission.decode(set(Self.submission, [.key("text")], .string(full + "x")), at: .root)
        }
    }

    @Test func submissionsCarryAtMostEightAttachments() throws {
        let eight: JSONValue = .array((1...8).map { .string("u-\($0)") })
        let nine: JSONValue = .array((1...9).map { .string("u-\($0)") })
        #expect(
            try AgentRoomSubmission.decode(set(Self.submission, [.key("attachments")], eight), at: .root)
                .attachments.count == 8)
        expectRejection(at: "attachments", "at most 8") {
            try AgentRoomSubmission.decode(set(Self.submission, [.key("attachments")], nine), at: .root)
        }
    }

    @Test func receiptsAcknowledgeExactlyTheSubmittedIdsInOrder() throws {
        let submission = AgentRoomSubmission(requestId: "r-1", text: "", createdAt: 1, attachments: ["a", "b"])
        let receipt = AgentRoomReceipt(
            requestId: "r-1", messageId: "msg-1", cursor: Self.cursor("c-1"), attachments: ["a", "b"])
        #expect(receipt.acknowledges(submission))
        #expect(try AgentRoomReceipt.decode(receipt.jsonValue, at: .root) == receipt)
        var reordered = receipt
        reordered.attachments = ["b", "a"]
        #expect(!reordered.acknowledges(submission))
        var missing = receipt
        missing.attachments = ["a"]
        #expect(!missing.acknowledges(submission))
        var other = receipt
        other.requestId = "r-2"
        #expect(!other.acknowledges(submission))
        expectRejection(at: "receipt.attachments[0]", "non-empty") {
            try AgentRoomReceipt.decode(
                set(receipt.jsonValue, [.key("receipt"), .key("attachments")], [""]), at: .root)
        }
    }

    // MARK: Read state and stream events

    @Test func readStateAndStreamEventsRoundTrip() throws {
        let read = AgentReadState(readCursor: Self.cursor("c-000000007"), unread: 2)
        #expect(try AgentReadState.decode(read.jsonValue, at: .root) == read)
        #expect(try AgentReadState.decode(["readCursor": nil, "unread": 0], at: .root).readCursor == nil)
        expectRejection(at: "unread", "outside") {
            try AgentReadState.decode(["readCursor": nil, "unread": -1], at: .root)
        }
        let events: [AgentStreamEvent] = [
            .message(try AgentRoomMessage.decode(Self.message, at: .root)), .activity(.working, detail: "Reading"),
            .activity(.idle, detail: ""), .read(read),
        ]
        for event in events {
            #expect(try AgentStreamEvent.decode(frame: JSONWriter().string(from: event.jsonValue)) == event)
        }
    }

    @Test func streamEventsAreStrict() {
        expectRejection(at: "type", "must be") { try AgentStreamEvent.decode(frame: #"{"type":"typing"}"#) }
        expectRejection(at: "state", "must be one of") {
            try AgentStreamEvent.decode(frame: #"{"type":"activity","state":"busy","detail":""}"#)
        }
        expectRejection(at: "extra", "unexpected member") {
            try AgentStreamEvent.decode(frame: #"{"type":"read","readCursor":null,"unread":0,"extra":1}"#)
        }
        expectRejection(at: "message.role", "required member is missing") {
            try AgentStreamEvent.decode(frame: #"{"type":"message","message":{"messageId":"m","cursor":"c-1"}}"#)
        }
        #expect(throws: JSONError.self) { try AgentStreamEvent.decode(frame: #"{"type":"read","#) }
    }

    // MARK: Descriptor

    static let limits: JSONValue = AgentAttachmentLimits.v1.jsonValue
    static let descriptor: JSONValue = [
        "room": ["roomId": "room-main", "title": "Sybil Agent"],
        "capabilities": [
            "attachments": ["version": 1, "limits": limits, "quota": ["usedBytes": 5, "limitBytes": 10]]
        ],
    ]

    @Test func attachmentsNeedVersionOneWithWellFormedLimits() throws {
        let decoded = try AgentRoomDescriptor.decode(Self.descriptor, at: .root)
        #expect(decoded.attachments?.limits == .v1)
        #expect(decoded.attachments?.quota == AgentQuota(usedBytes: 5, limitBytes: 10))
        #expect(try AgentRoomDescriptor.decode(decoded.jsonValue, at: .root) == decoded)
        let textOnly: [JSONValue] = [
            set(Self.descriptor, [.key("capabilities")], nil),
            set(Self.descriptor, [.key("capabilities"), .key("attachments")], nil),
            set(Self.descriptor, [.key("capabilities"), .key("attachments"), .key("version")], 2),
            set(Self.descriptor, [.key("capabilities"), .key("attachments"), .key("version")], "1"),
            set(Self.descriptor, [.key("capabilities"), .key("attachments"), .key("version")], nil),
            set(Self.descriptor, [.key("capabilities"), .key("attachments"), .key("limits")], nil),
            set(Self.descriptor, [.key("capabilities"), .key("attachments"), .key("limits"), .key("maxFiles")], 0),
            set(Self.descriptor, [.key("capabilities"), .key("attachments")], "yes"),
            set(Self.descriptor, [.key("capabilities")], []),
        ]
        for value in textOnly {
            #expect(try AgentRoomDescriptor.decode(value, at: .root).attachments == nil, "\(value)")
        }
        let badQuota = set(
            Self.descriptor, [.key("capabilities"), .key("attachments"), .key("quota")], ["usedBytes": -1])
        #expect(try AgentRoomDescriptor.decode(badQuota, at: .root).attachments?.quota == nil)
        expectRejection(at: "room.title", "non-blank") {
            try AgentRoomDescriptor.decode(set(Self.descriptor, [.key("room"), .key("title")], " "), at: .root)
        }
    }

    @Test func advertisedLimitsAboveTheCeilingsAreClamped() throws {
        let generous = AgentAttachmentLimits(
            maxFiles: 9, maxTotalBytes: (32 << 20) + 1, maxImageBytes: (6 << 20) + 1, maxFileBytes: (8 << 20) + 1,
            maxPixels: 50_000_001, maxAxisPixels: 16_385)
        let value = set(
            Self.descriptor, [.key("capabilities"), .key("attachments"), .key("limits")], generous.jsonValue)
        #expect(try AgentRoomDescriptor.decode(value, at: .root).attachments?.limits == .v1)
        let modest = AgentAttachmentLimits(
            maxFiles: 2, maxTotalBytes: 1 << 20, maxImageBytes: 1 << 19, maxFileBytes: 1 << 18, maxPixels: 1_000_000,
            maxAxisPixels: 1_000)
        #expect(modest.clamped() == modest)
        #expect(AgentAttachmentLimits.v1.maxBytes(forMimeType: "IMAGE/PNG") == 6 << 20)
        #expect(AgentAttachmentLimits.v1.maxBytes(forMimeType: "application/pdf") == 8 << 20)
        #expect(AgentAttachmentLimits.v1.maxFiles == 8)
        #expect(AgentAttachmentLimits.v1.maxTotalBytes == 33_554_432)
        #expect(AgentAttachmentLimits.v1.maxPixels == 50_000_000)
        #expect(AgentAttachmentLimits.v1.maxAxisPixels == 16_384)
    }

    // MARK: Error bodies

    @Test func errorBodiesKeepTheirDetails() throws {
        let value: JSONValue = [
            "error": [
                "message": "Your attachment storage is full.", "type": "insufficient_storage", "code": "quota_exceeded",
                "details": ["quota": ["usedBytes": 10, "limitBytes": 10]],
            ]
        ]
        let body = try APIErrorBody.decode(value, at: .root)
        #expect(body.details?["quota"] != nil)
        #expect(try APIErrorBody.decode(body.jsonValue, at: .root) == body)
        expectRejection(at: "error.details", "expected an object") {
            try APIErrorBody.decode(set(value, [.key("error"), .key("details")], 1), at: .root)
        }
    }
}

import Foundation
import SybilCore
import SybilWire
import Testing

/// The desktop RPC's contract types (docs/api/workspaces.md): each decodes what it encodes,
/// and each rule rejects with the JSON path of the member that breaks it.
@Suite("Workspace RPC contract", .timeLimit(.minutes(2)))
struct WorkspaceRPCContractTests {
    typealias Step = JSONEdit.Step

    static let paramsPath = JSONPath.root.appending(key: "params")
    static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
    static let sha = String(repeating: "0123456789abcdef", count: 4)

    private func expectRejection<T>(
        at path: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ decode: () throws -> T
    ) {
        expectContractRejection(at: path, fragment, sourceLocation: sourceLocation, decode)
    }

    private func edited(_ value: JSONValue, _ key: String, _ newValue: JSONValue?) -> JSONValue {
        JSONEdit.setting(value, [.key(key)], to: newValue)
    }

    private func bytes(_ value: JSONValue) -> [UInt8] {
        Array(JSONWriter().string(from: value).utf8)
    }

    static func object(_ value: JSONValue) -> JSONObject {
        guard case .object(let object) = value else { preconditionFailure("not an object: \(value)") }
        return object
    }

    private func params(_ value: JSONValue) throws(JSONError) -> JSONObjectReader {
        try JSONObjectReader(value, at: Self.paramsPath)
    }

    // MARK: WorkspaceRPCRequest and WorkspaceRPCResult

    static let readRequest: JSONValue = [
        "method": "sessions.list", "callKey": nil, "params": ["desktopId": "desk-1", "projectId": "proj-app"],
    ]

    private func decodeRequest(_ value: JSONValue) throws(JSONError) -> WorkspaceRPCRequest {
        try WorkspaceRPCRequest.decode(json: bytes(value))
    }

    @Test func requestRoundTrips() throws {
        let read = try decodeRequest(Self.readRequest)
        #expect(read.method == "sessions.list")
        #expect(read.callKey == nil)
        #expect(read.params["projectId"] == "proj-app")
        #expect(read.jsonValue == Self.readRequest, "null call key and members kept in order")
        #expect(try WorkspaceRPCRequest.decode(json: read.body) == read)

        let write = WorkspaceRPCRequest(method: "run.codexChatStop", callKey: "run.codexChatStop:run-3")
        let again = try WorkspaceRPCRequest.decode(json: write.body)
        #expect(again == write)
        #expect(again.callKey == "run.codexChatStop:run-3")
        #expect(again.params.members.isEmpty)
    }

    @Test func requestMembersAreExact() {
        for key in ["method", "callKey", "params"] {
            expectRejection(at: key, "required member is missing") {
                try decodeRequest(edited(Self.readRequest, key, nil))
            }
        }
        expectRejection(at: "id", "unexpected member") { try decodeRequest(edited(Self.readRequest, "id", 1)) }
    }

    @Test func requestMemberTypes() {
        expectRejection(at: "method", "non-empty") { try decodeRequest(edited(Self.readRequest, "method", "")) }
        expectRejection(at: "method", "got null") { try decodeRequest(edited(Self.readRequest, "method", .null)) }
        expectRejection(at: "callKey", "got a number") { try decodeRequest(edited(Self.readRequest, "callKey", 7)) }
        expectRejection(at: "params", "expected an object") {
            try decodeRequest(edited(Self.readRequest, "params", []))
        }
        expectRejection(at: "params", "got null") { try decodeRequest(edited(Self.readRequest, "params", .null)) }
        expectRejection(at: "$", "expected an object") { try decodeRequest(["sessions.list"]) }
    }

    @Test func requestParamsRejectDuplicateMembers() {
        let text = #"{"method": "m", "callKey": null, "params": {"runId": "a", "runId": "b"}}"#
        expectRejection(at: "params.runId", "duplicate key") { try WorkspaceRPCRequest.decode(json: Array(text.utf8)) }
    }

    @Test("a member name with the Kelvin sign U+212A is not callKey: names compare by code points")
    func requestRefusesAKelvinSignCallKey() {
        let text = #"{"method": "run.codexChatStop", "call\u212aey": "k-1", "params": {}}"#
        expectRejection(at: "callKey", "required member is missing") {
            try WorkspaceRPCRequest.decode(json: Array(text.utf8))
        }
    }

    @Test func paramsReaderNamesParamsMembers() throws {
        let request = try decodeRequest(Self.readRequest)
        #expect(request.paramsReader.path.description == "params")
        expectRejection(at: "params.sessionId", "required member is missing") {
            try WorkspaceChatKey.decode(params: request.paramsReader)
        }
    }

    @Test func resultWrapsAndUnwraps() throws {
        let desktops = [WorkspaceDesktop(desktopId: "desk-1", name: "Studio Mac", online: true)]
        let answer = WorkspaceRPCResult.jsonValue(WorkspaceDesktop.listJSON(desktops))
        #expect(answer == ["result": ["desktops": [["desktopId": "desk-1", "name": "Studio Mac", "online": true]]]])
        #expect(try WorkspaceRPCResult.decode(json: bytes(answer), WorkspaceDesktop.decodeList) == desktops)
    }

    @Test func resultRules() {
        let list: JSONValue = ["desktops": [["desktopId": "desk-1", "name": "Studio Mac", "online": "yes"]]]
        expectRejection(at: "result.desktops[0].online", "expected a boolean") {
            try WorkspaceRPCResult.decode(json: bytes(["result": list]), WorkspaceDesktop.decodeList)
        }
        expectRejection(at: "result", "required member is missing") {
            try WorkspaceRPCResult.decode(json: bytes(["error": "x"]), WorkspaceDesktop.decodeList)
        }
        expectRejection(at: "error", "unexpected member") {
            try WorkspaceRPCResult.decode(
                json: bytes(["result": ["desktops": []], "error": "x"]), WorkspaceDesktop.decodeList)
        }
    }

    // MARK: Browsing: desktops, projects, sessions

    @Test func desktopListRoundTrips() throws {
        let desktops = [
            WorkspaceDesktop(desktopId: "desk-1", name: "Studio Mac", online: true),
            WorkspaceDesktop(desktopId: "desk-2", name: "", online: false),
        ]
        let json = WorkspaceDesktop.listJSON(desktops)
        let decoded = try WorkspaceDesktop.decodeList(json, at: .root)
        #expect(decoded == desktops)
        #expect(try WorkspaceDesktop.decodeList(WorkspaceDesktop.listJSON(decoded), at: .root) == desktops)
        #expect(try WorkspaceDesktop.decodeList(["desktops": []], at: .root).isEmpty)
    }

    @Test func desktopRules() {
        let one: JSONValue = ["desktopId": "desk-1", "name": "Studio Mac", "online": true]
        let decode = { (value: JSONValue) throws in try WorkspaceDesktop.decode(value, at: .root) }
        for key in ["desktopId", "name", "online"] {
            expectRejection(at: key, "required member is missing") { try decode(edited(one, key, nil)) }
        }
        expectRejection(at: "os", "unexpected member") { try decode(edited(one, "os", "macOS")) }
        expectRejection(at: "desktopId", "non-empty") { try decode(edited(one, "desktopId", "")) }
        expectRejection(at: "online", "expected a boolean") { try decode(edited(one, "online", 1)) }
        expectRejection(at: "desktops[1].desktopId", "non-empty") {
            try WorkspaceDesktop.decodeList(["desktops": [one, edited(one, "desktopId", "")]], at: .root)
        }
        expectRejection(at: "desktops", "expected an array") {
            try WorkspaceDesktop.decodeList(["desktops": one], at: .root)
        }
        expectRejection(at: "projects", "unexpected member") {
            try WorkspaceDesktop.decodeList(["desktops": [], "projects": []], at: .root)
        }
        expectRejection(at: "desktops", "required member is missing") {
            try WorkspaceDesktop.decodeList(["projects": []], at: .root)
        }
    }

    @Test func projectListRoundTrips() throws {
        let projects = [
            WorkspaceProject(projectId: "proj-app", name: "App", folder: "/Users/ana/src/app"),
            WorkspaceProject(projectId: "proj-web", name: "Web", folder: "/Users/ana/src/web"),
        ]
        let decoded = try WorkspaceProject.decodeList(WorkspaceProject.listJSON(projects), at: .root)
        #expect(decoded == projects)
        #expect(try WorkspaceProject.decodeList(WorkspaceProject.listJSON(decoded), at: .root) == projects)
    }

    @Test func projectRules() {
        let one: JSONValue = ["projectId": "proj-app", "name": "App", "folder": "/src/app"]
        let list = { (items: JSONValue) throws in
            try WorkspaceProject.decodeList(["projects": items], at: .root)
        }
        for key in ["projectId", "name", "folder"] {
            expectRejection(at: "projects[0].\(key)", "required member is missing") {
                try list([edited(one, key, nil)])
            }
        }
        expectRejection(at: "projects[0].git", "unexpected member") { try list([edited(one, "git", true)]) }
        expectRejection(at: "projects[1].projectId", "non-empty") { try list([one, edited(one, "projectId", "")]) }
        expectRejection(at: "projects[0].folder", "got null") { try list([edited(one, "folder", .null)]) }
        expectRejection(at: "desktops", "unexpected member") {
            try WorkspaceProject.decodeList(["projects": [], "desktops": []], at: .root)
        }
    }

    @Test func sessionListRoundTrips() throws {
        let sessions = [
            WorkspaceSessionSummary(
                sessionId: "sess-42", title: "Fix login", updatedAt: 1_764_400_123_456, running: true),
            WorkspaceSessionSummary(
                sessionId: "sess-7", title: "", updatedAt: JSONValueReader.maxSafeInteger, running: false),
            WorkspaceSessionSummary(sessionId: "sess-1", title: "Old", updatedAt: 0, running: false),
        ]
        let decoded = try WorkspaceSessionSummary.decodeList(WorkspaceSessionSummary.listJSON(sessions), at: .root)
        #expect(decoded == sessions, "order kept: the list is newest first")
        #expect(
            try WorkspaceSessionSummary.decodeList(WorkspaceSessionSummary.listJSON(decoded), at: .root) == sessions)
    }

    @Test func sessionRules() {
        let one: JSONValue = ["sessionId": "sess-42", "title": "Fix login", "updatedAt": 1, "running": true]
        let list = { (items: JSONValue) throws in
            try WorkspaceSessionSummary.decodeList(["sessions": items], at: .root)
        }
        for key in ["sessionId", "title", "updatedAt", "running"] {
            expectRejection(at: "sessions[0].\(key)", "required member is missing") {
                try list([edited(one, key, nil)])
            }
        }
        expectRejection(at: "sessions[0].model", "unexpected member") { try list([edited(one, "model", "m")]) }
        expectRejection(at: "sessions[0].sessionId", "non-empty") { try list([edited(one, "sessionId", "")]) }
        expectRejection(at: "sessions[0].running", "expected a boolean") { try list([edited(one, "running", "no")]) }
        for bad in ["-1", "9007199254740992", "1.5", "1e3"] {
            expectRejection(at: "sessions[1].updatedAt", bad) {
                try list([one, edited(one, "updatedAt", JSONEdit.number(bad))])
            }
        }
        expectRejection(at: "sessions[0].updatedAt", "got a string") { try list([edited(one, "updatedAt", "1")]) }
        expectRejection(at: "sessions", "expected an array") { try list(nil) }
    }

    // MARK: WorkspaceChatKey+JSON

    @Test func chatKeyParamsRoundTrip() throws {
        let members = Self.chat.paramsMembers
        #expect(members.map(\.key) == ["desktopId", "projectId", "sessionId"], "contract order")
        let decoded = try WorkspaceChatKey.decode(params: try params(.object(JSONObject(members))))
        #expect(decoded == Self.chat)
        #expect(decoded.paramsMembers == members)
    }

    @Test func chatKeyRules() throws {
        let value = JSONValue.object(JSONObject(Self.chat.paramsMembers))
        for key in ["desktopId", "projectId", "sessionId"] {
            expectRejection(at: "params.\(key)", "required member is missing") {
                try WorkspaceChatKey.decode(params: try params(edited(value, key, nil)))
            }
            expectRejection(at: "params.\(key)", "non-empty") {
                try WorkspaceChatKey.decode(params: try params(edited(value, key, "")))
            }
            expectRejection(at: "params.\(key)", "got a number") {
                try WorkspaceChatKey.decode(params: try params(edited(value, key, 1)))
            }
        }
    }

    // MARK: WorkspaceSubmission

    static let steerParams: JSONValue = [
        "desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42", "operationId": "op-0b6f",
        "mutationId": "mut-91aa", "mode": "steer", "activeRunId": "run-77", "text": "Fix it please.",
        "attachments": ["upl-3", "upl-4"],
    ]

    static var sendParams: JSONValue {
        var value = JSONEdit.setting(steerParams, [.key("mode")], to: "send")
        JSONEdit.set(&value, [.key("activeRunId")], to: nil)
        return value
    }

    private func submission(_ value: JSONValue) throws(JSONError) -> WorkspaceSubmission {
        try WorkspaceSubmission.decode(params: try params(value))
    }

    @Test func submissionDecodesBothModes() throws {
        let steer = try submission(Self.steerParams)
        #expect(steer.chat == Self.chat)
        #expect(steer.operationId == "op-0b6f")
        #expect(steer.mutationId == "mut-91aa")
        #expect(steer.mode == .steer(activeRunId: "run-77"))
        #expect(steer.mode.activeRunId == "run-77")
        #expect(steer.text == "Fix it please.")
        #expect(steer.attachments == ["upl-3", "upl-4"])

        let send = try submission(Self.sendParams)
        #expect(send.mode == .send)
        #expect(send.mode.activeRunId == nil)
        #expect(send.mode.name == "send")
    }

    @Test(arguments: [false, true])
    func submissionRoundTripsAsARequest(steer: Bool) throws {
        let original = steer ? Self.steerParams : Self.sendParams
        let decoded = try submission(original)
        #expect(decoded.params == Self.object(original), "params are written in contract order")
        let request = try WorkspaceRPCRequest.decode(json: decoded.request.body)
        #expect(request.method == "run.codexChatSubmit")
        #expect(request.callKey == decoded.callKey)
        let again = try WorkspaceSubmission.decode(params: request.paramsReader)
        #expect(again == decoded)
    }

    @Test func submissionCallKeyFormat() throws {
        let decoded = try submission(Self.steerParams)
        #expect(WorkspaceSubmission.method == "run.codexChatSubmit")
        #expect(decoded.callKey == "run.codexChatSubmit:op-0b6f:mut-91aa")
        var next = decoded
        next.mutationId = "mut-2"
        #expect(next.callKey == "run.codexChatSubmit:op-0b6f:mut-2", "a new version of a message is a new call")
        #expect(next.request.callKey == next.callKey)
    }

    @Test func aSteerNeedsTheRunItSteers() {
        expectRejection(at: "params.activeRunId", "a steer needs the run") {
            try submission(edited(Self.steerParams, "activeRunId", nil))
        }
        expectRejection(at: "params.activeRunId", "a steer needs the run") {
            try submission(edited(Self.steerParams, "activeRunId", .null))
        }
        expectRejection(at: "params.activeRunId", "non-empty") {
            try submission(edited(Self.steerParams, "activeRunId", ""))
        }
        expectRejection(at: "params.activeRunId", "got a number") {
            try submission(edited(Self.steerParams, "activeRunId", 77))
        }
    }

    @Test func aSendMustNotNameARun() {
        expectRejection(at: "params.activeRunId", "only a steer names a run") {
            try submission(edited(Self.sendParams, "activeRunId", "run-77"))
        }
    }

    @Test("mode is send or steer", arguments: ["Send", "STEER", "", "queue"])
    func modeOutsideTheSet(mode: String) {
        expectRejection(at: "params.mode", #"must be "send" or "steer""#) {
            try submission(edited(Self.steerParams, "mode", .string(mode)))
        }
    }

    @Test func modeMustBeAString() {
        expectRejection(at: "params.mode", "required member is missing") {
            try submission(edited(Self.steerParams, "mode", nil))
        }
        expectRejection(at: "params.mode", "got a boolean") { try submission(edited(Self.steerParams, "mode", true)) }
    }

    @Test("blank text fails without attachments", arguments: ["", " ", "\n\t", "\u{00A0}"])
    func blankTextWithoutAttachments(text: String) throws {
        var value = edited(Self.sendParams, "text", .string(text))
        for attachments: JSONValue? in [nil, [], .null] {
            value = edited(value, "attachments", attachments)
            expectRejection(at: "params.text", "must not be blank") { try submission(value) }
        }
        let withFile = try submission(edited(value, "attachments", ["upl-3"]))
        #expect(withFile.text == text)
        #expect(withFile.attachments == ["upl-3"])
    }

    @Test func textIsRequired() {
        expectRejection(at: "params.text", "required member is missing") {
            try submission(edited(Self.sendParams, "text", nil))
        }
        expectRejection(at: "params.text", "got null") { try submission(edited(Self.sendParams, "text", .null)) }
    }

    @Test func attachmentsAreNonEmptyStrings() throws {
        expectRejection(at: "params.attachments[1]", "must not be empty") {
            try submission(edited(Self.sendParams, "attachments", ["upl-3", ""]))
        }
        expectRejection(at: "params.attachments[0]", "expected a string, got a number") {
            try submission(edited(Self.sendParams, "attachments", [3]))
        }
        expectRejection(at: "params.attachments[0]", "got null") {
            try submission(edited(Self.sendParams, "attachments", [.null]))
        }
        expectRejection(at: "params.attachments", "expected an array of upload ids, got a string") {
            try submission(edited(Self.sendParams, "attachments", "upl-3"))
        }
        #expect(try submission(edited(Self.sendParams, "attachments", nil)).attachments.isEmpty)
    }

    @Test func submissionRejectsUnknownMembers() {
        expectRejection(at: "params.priority", "unexpected member") {
            try submission(edited(Self.sendParams, "priority", 1))
        }
        expectRejection(at: "params.runId", "unexpected member") {
            try submission(edited(Self.sendParams, "runId", "run-77"))
        }
    }

    @Test(
        "identity members are required and non-empty",
        arguments: ["desktopId", "projectId", "sessionId", "operationId", "mutationId"])
    func submissionIdentity(key: String) {
        expectRejection(at: "params.\(key)", "required member is missing") {
            try submission(edited(Self.sendParams, key, nil))
        }
        expectRejection(at: "params.\(key)", "non-empty") { try submission(edited(Self.sendParams, key, "")) }
    }

    @Test("ids that go into the call key cannot carry its separator", arguments: ["operationId", "mutationId"])
    func submissionIdsWithoutColons(key: String) {
        expectRejection(at: "params.\(key)", "must not contain ':'") {
            try submission(edited(Self.sendParams, key, "op:1"))
        }
    }

    // MARK: WorkspaceSubmitReceipt

    static let accepted: JSONValue = [
        "receipt": ["operationId": "op-0b6f", "mutationId": "mut-91aa", "status": "accepted", "runId": "run-77"]
    ]
    static let rejected: JSONValue = [
        "receipt": ["operationId": "op-0b6f", "mutationId": "mut-91aa", "status": "rejected", "reason": "Too late."]
    ]

    private func receipt(_ value: JSONValue) throws(JSONError) -> WorkspaceSubmitReceipt {
        try WorkspaceSubmitReceipt.decode(value, at: .root)
    }

    private func receiptMember(_ value: JSONValue, _ key: String, _ newValue: JSONValue?) -> JSONValue {
        JSONEdit.setting(value, [.key("receipt"), .key(key)], to: newValue)
    }

    @Test func receiptsRoundTrip() throws {
        let yes = try receipt(Self.accepted)
        #expect(
            yes
                == WorkspaceSubmitReceipt(
                    operationId: "op-0b6f", mutationId: "mut-91aa", outcome: .accepted(runId: "run-77")))
        let no = try receipt(Self.rejected)
        #expect(no.outcome == .rejected(reason: "Too late."))
        for (decoded, original) in [(yes, Self.accepted), (no, Self.rejected)] {
            #expect(decoded.jsonValue == original, "members in contract order")
            let answer = WorkspaceRPCResult.jsonValue(decoded.jsonValue)
            #expect(try WorkspaceRPCResult.decode(json: bytes(answer), WorkspaceSubmitReceipt.decode) == decoded)
        }
    }

    @Test func acceptedNeedsARunId() {
        expectRejection(at: "receipt.runId", "required member is missing") {
            try receipt(receiptMember(Self.accepted, "runId", nil))
        }
        expectRejection(at: "receipt.runId", "non-empty") { try receipt(receiptMember(Self.accepted, "runId", "")) }
        expectRejection(at: "receipt.reason", "unexpected member") {
            try receipt(receiptMember(Self.accepted, "reason", "x"))
        }
    }

    @Test func rejectedNeedsAReason() {
        expectRejection(at: "receipt.reason", "required member is missing") {
            try receipt(receiptMember(Self.rejected, "reason", nil))
        }
        for blank: JSONValue in ["", "  ", "\n"] {
            expectRejection(at: "receipt.reason", "non-blank") {
                try receipt(receiptMember(Self.rejected, "reason", blank))
            }
        }
        expectRejection(at: "receipt.runId", "unexpected member") {
            try receipt(receiptMember(Self.rejected, "runId", "run-77"))
        }
    }

    @Test func receiptKeySets() {
        for key in ["operationId", "mutationId"] {
            expectRejection(at: "receipt.\(key)", "required member is missing") {
                try receipt(receiptMember(Self.accepted, key, nil))
            }
            expectRejection(at: "receipt.\(key)", "non-empty") { try receipt(receiptMember(Self.rejected, key, "")) }
        }
        expectRejection(at: "receipt.status", "required member is missing") {
            try receipt(receiptMember(Self.accepted, "status", nil))
        }
        expectRejection(at: "receipt.at", "unexpected member") { try receipt(receiptMember(Self.accepted, "at", 1)) }
        expectRejection(at: "runId", "unexpected member") { try receipt(edited(Self.accepted, "runId", "run-77")) }
        expectRejection(at: "receipt", "required member is missing") { try receipt(["status": "accepted"]) }
        expectRejection(at: "receipt", "expected an object") { try receipt(["receipt": "accepted"]) }
    }

    @Test("an unknown status fails", arguments: ["pending", "Accepted", ""])
    func unknownStatus(status: String) {
        expectRejection(at: "receipt.status", #"must be "accepted" or "rejected""#) {
            try receipt(receiptMember(Self.accepted, "status", .string(status)))
        }
    }

    // MARK: WorkspaceRunStop, its Result and WorkspaceRunState

    static let stopParams: JSONValue = [
        "desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42", "runId": "run-3",
    ]

    @Test func stopRoundTrips() throws {
        let stop = try WorkspaceRunStop.decode(params: try params(Self.stopParams))
        #expect(stop == WorkspaceRunStop(chat: Self.chat, runId: "run-3"))
        #expect(stop.callKey == "run.codexChatStop:run-3")
        #expect(stop.request.method == "run.codexChatStop")
        #expect(stop.request.params == Self.object(Self.stopParams))
        let request = try WorkspaceRPCRequest.decode(json: stop.request.body)
        #expect(request.callKey == "run.codexChatStop:run-3")
        #expect(try WorkspaceRunStop.decode(params: request.paramsReader) == stop)
    }

    @Test func stopParamsAreExact() {
        let decode = { (value: JSONValue) throws in
            try WorkspaceRunStop.decode(params: try params(value))
        }
        for key in ["desktopId", "projectId", "sessionId", "runId"] {
            expectRejection(at: "params.\(key)", "required member is missing") {
                try decode(edited(Self.stopParams, key, nil))
            }
            expectRejection(at: "params.\(key)", "non-empty") { try decode(edited(Self.stopParams, key, "")) }
        }
        expectRejection(at: "params.force", "unexpected member") { try decode(edited(Self.stopParams, "force", true)) }
    }

    @Test("a stop result carries each ending", arguments: WorkspaceRunState.allCases.filter(\.isEnding))
    func stopResultRoundTrips(state: WorkspaceRunState) throws {
        let result = WorkspaceRunStop.Result(runId: "run-3", state: state)
        #expect(result.jsonValue == ["runId": "run-3", "state": .string(state.rawValue)])
        let decoded = try WorkspaceRunStop.Result.decode(result.jsonValue, at: .root)
        #expect(decoded == result)
        #expect(try WorkspaceRunStop.Result.decode(decoded.jsonValue, at: .root) == result)
    }

    @Test("a stop result's state must be an ending", arguments: [WorkspaceRunState.queued, .started])
    func stopResultNotEnded(state: WorkspaceRunState) {
        expectRejection(at: "result.state", "must be an ending") {
            try WorkspaceRunStop.Result.decode(
                ["runId": "run-3", "state": .string(state.rawValue)], at: JSONPath.root.appending(key: "result"))
        }
    }

    @Test func stopResultRules() {
        let decode = { (value: JSONValue) throws in try WorkspaceRunStop.Result.decode(value, at: .root) }
        let good: JSONValue = ["runId": "run-3", "state": "stopped"]
        expectRejection(at: "state", "is not one of") { try decode(edited(good, "state", "paused")) }
        expectRejection(at: "state", "got a number") { try decode(edited(good, "state", 1)) }
        expectRejection(at: "state", "required member is missing") { try decode(edited(good, "state", nil)) }
        expectRejection(at: "runId", "non-empty") { try decode(edited(good, "runId", "")) }
        expectRejection(at: "endedAt", "unexpected member") { try decode(edited(good, "endedAt", 1)) }
    }

    @Test func runStateEndings() {
        let endings = Set(WorkspaceRunState.allCases.filter(\.isEnding))
        #expect(endings == [.finished, .failed, .cancelled, .stopped])
        #expect(!WorkspaceRunState.queued.isEnding)
        #expect(!WorkspaceRunState.started.isEnding)
        #expect(WorkspaceRunState.allCases.count == 6)
    }

    // MARK: AttachmentUploadRequest

    static let uploadParams: JSONValue = [
        "desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42", "fileName": "crash.jpg",
        "mimeType": "image/jpeg", "path": "/private/var/mobile/tmp/crash.png", "size": 2_411_520,
    ]

    private func uploadRequest(_ value: JSONValue) throws(JSONError) -> AttachmentUploadRequest {
        try AttachmentUploadRequest.decode(params: try params(value))
    }

    @Test func uploadRequestRoundTrips() throws {
        let decoded = try uploadRequest(Self.uploadParams)
        #expect(decoded.chat == Self.chat)
        #expect(decoded.fileName == "crash.jpg")
        #expect(decoded.mimeType == "image/jpeg")
        #expect(decoded.path == "/private/var/mobile/tmp/crash.png")
        #expect(decoded.size == 2_411_520)
        #expect(decoded.params == Self.object(Self.uploadParams), "contract order")
        #expect(try uploadRequest(.object(decoded.params)) == decoded)
    }

    @Test func uploadSizeBoundaries() throws {
        #expect(AttachmentUploadRequest.maximumSize == 1 << 30)
        for good: Int64 in [1, 1 << 30] {
            #expect(try uploadRequest(edited(Self.uploadParams, "size", .number(JSONNumber(good)))).size == good)
        }
        for bad: Int64 in [0, (1 << 30) + 1, -1] {
            expectRejection(at: "params.size", "\(bad)") {
                try uploadRequest(edited(Self.uploadParams, "size", .number(JSONNumber(bad))))
            }
        }
        expectRejection(at: "params.size", "without fraction or exponent") {
            try uploadRequest(edited(Self.uploadParams, "size", JSONEdit.number("1.0")))
        }
        expectRejection(at: "params.size", "got a string") { try uploadRequest(edited(Self.uploadParams, "size", "1")) }
    }

    @Test func uploadRequestRules() throws {
        for key in ["fileName", "mimeType"] {
            for blank: JSONValue in ["", " "] {
                expectRejection(at: "params.\(key)", "non-blank") {
                    try uploadRequest(edited(Self.uploadParams, key, blank))
                }
            }
        }
        for key in ["desktopId", "projectId", "sessionId", "fileName", "mimeType", "path", "size"] {
            expectRejection(at: "params.\(key)", "required member is missing") {
                try uploadRequest(edited(Self.uploadParams, key, nil))
            }
        }
        expectRejection(at: "params.sha256", "unexpected member") {
            try uploadRequest(edited(Self.uploadParams, "sha256", .string(Self.sha)))
        }
        expectRejection(at: "params.path", "got null") { try uploadRequest(edited(Self.uploadParams, "path", .null)) }
    }

    // MARK: AttachmentUploadBegin

    static let begin: JSONValue = ["uploadId": "upl-3", "chunkSize": 1_048_576, "receivedChunks": 0]

    private func begin(_ value: JSONValue) throws(JSONError) -> AttachmentUploadBegin {
        try AttachmentUploadBegin.decode(value, at: JSONPath.root.appending(key: "result"))
    }

    @Test func beginRoundTrips() throws {
        let decoded = try begin(Self.begin)
        #expect(decoded == AttachmentUploadBegin(uploadId: "upl-3", chunkSize: 1 << 20, receivedChunks: 0))
        #expect(decoded.jsonValue == Self.begin)
        let resumed = AttachmentUploadBegin(uploadId: "upl-3", chunkSize: 4096, receivedChunks: 7)
        #expect(try begin(resumed.jsonValue) == resumed)
    }

    @Test func beginChunkSizeBoundaries() throws {
        #expect(AttachmentUploadBegin.maximumChunkSize == 1 << 20)
        for good: Int64 in [1, 1 << 20] {
            #expect(try begin(edited(Self.begin, "chunkSize", .number(JSONNumber(good)))).chunkSize == Int(good))
        }
        for bad: Int64 in [0, (1 << 20) + 1, -1] {
            expectRejection(at: "result.chunkSize", "\(bad)") {
                try begin(edited(Self.begin, "chunkSize", .number(JSONNumber(bad))))
            }
        }
    }

    @Test func beginReceivedChunksIsNotNegative() throws {
        #expect(try begin(edited(Self.begin, "receivedChunks", 12)).receivedChunks == 12)
        expectRejection(at: "result.receivedChunks", "-1") { try begin(edited(Self.begin, "receivedChunks", -1)) }
        expectRejection(at: "result.receivedChunks", "1.5") {
            try begin(edited(Self.begin, "receivedChunks", JSONEdit.number("1.5")))
        }
    }

    @Test func beginMembersAreExact() {
        for key in ["uploadId", "chunkSize", "receivedChunks"] {
            expectRejection(at: "result.\(key)", "required member is missing") {
                try begin(edited(Self.begin, key, nil))
            }
        }
        expectRejection(at: "result.uploadId", "non-empty") { try begin(edited(Self.begin, "uploadId", "")) }
        expectRejection(at: "result.size", "unexpected member") { try begin(edited(Self.begin, "size", 1)) }
    }

    // MARK: AttachmentUploadResult

    private func uploadResult(_ value: JSONValue) throws(JSONError) -> AttachmentUploadResult {
        try AttachmentUploadResult.decode(value, at: .root)
    }

    @Test func uploadResultRoundTrips() throws {
        let result = AttachmentUploadResult(uploadId: "upl-3", size: 2_411_520, sha256: Self.sha)
        #expect(result.jsonValue == ["uploadId": "upl-3", "size": 2_411_520, "sha256": .string(Self.sha)])
        let decoded = try uploadResult(result.jsonValue)
        #expect(decoded == result)
        #expect(try uploadResult(decoded.jsonValue) == result)
        #expect(try uploadResult(edited(result.jsonValue, "size", 0)).size == 0, "an empty file has a digest too")
    }

    @Test(
        "sha256 is exactly 64 lowercase hex digits",
        arguments: [
            String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "A", count: 64),
            String(repeating: "a", count: 63) + "g", String(repeating: "a", count: 63) + " ", "",
            String(repeating: "é", count: 32),
        ])
    func sha256Rules(digest: String) {
        let value: JSONValue = ["uploadId": "upl-3", "size": 1, "sha256": .string(digest)]
        expectRejection(at: "sha256", "64 lowercase hex digits") { try uploadResult(value) }
    }

    @Test func uploadResultRules() {
        let good = AttachmentUploadResult(uploadId: "upl-3", size: 1, sha256: Self.sha).jsonValue
        expectRejection(at: "sha256", "got a number") { try uploadResult(edited(good, "sha256", 1)) }
        expectRejection(at: "size", "-1") { try uploadResult(edited(good, "size", -1)) }
        expectRejection(at: "size", "1073741825") { try uploadResult(edited(good, "size", 1_073_741_825)) }
        expectRejection(at: "uploadId", "non-empty") { try uploadResult(edited(good, "uploadId", "")) }
        expectRejection(at: "chunkCount", "unexpected member") { try uploadResult(edited(good, "chunkCount", 1)) }
        expectRejection(at: "sha256", "required member is missing") { try uploadResult(edited(good, "sha256", nil)) }
    }

    // MARK: AttachmentUploadStep

    private func step(
        _ value: JSONValue, _ kind: AttachmentUploadStep.Kind
    ) throws(JSONError) -> AttachmentUploadStep {
        try AttachmentUploadStep.decode(params: try params(value), step: kind)
    }

    @Test(
        "each step round-trips through its params",
        arguments: [
            (
                AttachmentUploadStep.chunk(uploadId: "upl-3", index: 0, base64: "AAEC"),
                AttachmentUploadStep.Kind.chunk(0)
            ),
            (.chunk(uploadId: "upl-3", index: 41, base64: ""), .chunk(41)),
            (.finish(uploadId: "upl-3", chunkCount: 3), .finish),
            (.finish(uploadId: "upl-3", chunkCount: 0), .finish),
            (.cancel(uploadId: "upl-3"), .cancel),
        ])
    func stepRoundTrips(original: AttachmentUploadStep, kind: AttachmentUploadStep.Kind) throws {
        let decoded = try step(.object(original.params), kind)
        #expect(decoded == original)
        #expect(try step(.object(decoded.params), kind) == original)
    }

    @Test func chunkIndexMustEqualTheCallKeysNumber() throws {
        let params: JSONValue = ["uploadId": "upl-3", "index": 2, "data": "AAEC"]
        #expect(try step(params, .chunk(2)) == .chunk(uploadId: "upl-3", index: 2, base64: "AAEC"))
        expectRejection(at: "params.index", "must equal the chunk number in callKey (3)") {
            try step(params, .chunk(3))
        }
        expectRejection(at: "params.index", "must equal the chunk number in callKey (1)") {
            try step(params, .chunk(1))
        }
        expectRejection(at: "params.index", "-1") { try step(edited(params, "index", -1), .chunk(-1)) }
    }

    @Test func chunkParamsAreExact() {
        let params: JSONValue = ["uploadId": "upl-3", "index": 0, "data": "AAEC"]
        for key in ["uploadId", "index", "data"] {
            expectRejection(at: "params.\(key)", "required member is missing") {
                try step(edited(params, key, nil), .chunk(0))
            }
        }
        expectRejection(at: "params.chunkCount", "unexpected member") {
            try step(edited(params, "chunkCount", 1), .chunk(0))
        }
        expectRejection(at: "params.data", "got a number") { try step(edited(params, "data", 1), .chunk(0)) }
        expectRejection(at: "params.uploadId", "non-empty") { try step(edited(params, "uploadId", ""), .chunk(0)) }
    }

    @Test func finishAndCancelParamsAreExact() {
        let finish: JSONValue = ["uploadId": "upl-3", "chunkCount": 3]
        expectRejection(at: "params.chunkCount", "-1") { try step(edited(finish, "chunkCount", -1), .finish) }
        expectRejection(at: "params.chunkCount", "required member is missing") {
            try step(edited(finish, "chunkCount", nil), .finish)
        }
        expectRejection(at: "params.index", "unexpected member") { try step(edited(finish, "index", 0), .finish) }
        let cancel: JSONValue = ["uploadId": "upl-3"]
        expectRejection(at: "params.chunkCount", "unexpected member") { try step(finish, .cancel) }
        expectRejection(at: "params.uploadId", "non-empty") { try step(edited(cancel, "uploadId", ""), .cancel) }
        expectRejection(at: "params.uploadId", "required member is missing") { try step(["index": 0], .cancel) }
    }

    @Test func chunkAnswerIsChecked() throws {
        let answer = AttachmentUploadStep.chunkAnswer(uploadId: "upl-3", index: 2, receivedBytes: 3_145_728)
        #expect(answer == ["uploadId": "upl-3", "index": 2, "receivedBytes": 3_145_728])
        let path = JSONPath.root.appending(key: "result")
        try AttachmentUploadStep.decodeChunkAnswer(answer, at: path, uploadId: "upl-3", index: 2)
        expectRejection(at: "result.uploadId", #"answers another upload than "upl-4""#) {
            try AttachmentUploadStep.decodeChunkAnswer(answer, at: path, uploadId: "upl-4", index: 2)
        }
        expectRejection(at: "result.index", "answers another chunk than 3") {
            try AttachmentUploadStep.decodeChunkAnswer(answer, at: path, uploadId: "upl-3", index: 3)
        }
        expectRejection(at: "result.receivedBytes", "-1") {
            try AttachmentUploadStep.decodeChunkAnswer(
                edited(answer, "receivedBytes", -1), at: path, uploadId: "upl-3", index: 2)
        }
        expectRejection(at: "result.size", "unexpected member") {
            try AttachmentUploadStep.decodeChunkAnswer(edited(answer, "size", 1), at: path, uploadId: "upl-3", index: 2)
        }
    }

    @Test(arguments: [true, false])
    func cancelAnswerRoundTrips(cancelled: Bool) throws {
        let answer = AttachmentUploadStep.cancelAnswer(uploadId: "upl-3", cancelled: cancelled)
        #expect(answer == ["uploadId": "upl-3", "cancelled": .bool(cancelled)])
        #expect(try AttachmentUploadStep.decodeCancelAnswer(answer, at: .root) == cancelled)
    }

    @Test func cancelAnswerRules() {
        let answer = AttachmentUploadStep.cancelAnswer(uploadId: "upl-3", cancelled: true)
        expectRejection(at: "cancelled", "expected a boolean") {
            try AttachmentUploadStep.decodeCancelAnswer(edited(answer, "cancelled", "yes"), at: .root)
        }
        expectRejection(at: "uploadId", "non-empty") {
            try AttachmentUploadStep.decodeCancelAnswer(edited(answer, "uploadId", ""), at: .root)
        }
        expectRejection(at: "reason", "unexpected member") {
            try AttachmentUploadStep.decodeCancelAnswer(edited(answer, "reason", "x"), at: .root)
        }
    }

    // MARK: WorkspaceEvent

    static let overlay = LiveOverlay(
        settlementEpoch: 12, revision: 5,
        blocks: [
            TimelineBlock(
                type: .agentReply, id: "l-3", origin: .live, sourceOrder: [193], timestamp: 1_764_400_114_000,
                text: "Done.", runId: "run-77")
        ])

    static let events: [WorkspaceEvent] = [
        .overlay(overlay), .overlay(.empty), .run(runId: "run-77", state: .finished),
        .run(runId: "run-78", state: .queued), .session(sessionId: "sess-42", updatedAt: 1_764_400_120_000),
        .desktop(desktopId: "desk-1", online: false), .desktop(desktopId: "desk-1", online: true),
        .reset(reason: "The server restarted since that event; reload the chat."),
    ]

    private func event(_ name: String, _ data: JSONValue) throws(JSONError) -> WorkspaceEvent {
        try WorkspaceEvent.decode(name: name, data: bytes(data))
    }

    @Test("each event round-trips through its name and data", arguments: events)
    func eventRoundTrips(original: WorkspaceEvent) throws {
        let decoded = try WorkspaceEvent.decode(name: original.name, data: Array(original.dataText.utf8))
        #expect(decoded == original)
        #expect(try WorkspaceEvent.decode(name: decoded.name, data: Array(decoded.dataText.utf8)) == original)
    }

    @Test func eventNamesAndData() throws {
        #expect(
            Self.events.map(\.name) == ["overlay", "overlay", "run", "run", "session", "desktop", "desktop", "reset"])
        #expect(
            WorkspaceEvent.run(runId: "run-77", state: .stopped).dataJSON == ["runId": "run-77", "state": "stopped"])
        #expect(
            WorkspaceEvent.session(sessionId: "s", updatedAt: 5).dataJSON == ["sessionId": "s", "updatedAt": 5])
        #expect(WorkspaceEvent.desktop(desktopId: "d", online: true).dataJSON == ["desktopId": "d", "online": true])
        #expect(WorkspaceEvent.reset(reason: "r").dataJSON == ["reason": "r"])
        #expect(WorkspaceEvent.overlay(Self.overlay).dataJSON == Self.overlay.jsonValue)
    }

    @Test("every run state decodes in a run event", arguments: WorkspaceRunState.allCases)
    func runEventStates(state: WorkspaceRunState) throws {
        #expect(
            try event("run", ["runId": "run-1", "state": .string(state.rawValue)]) == .run(runId: "run-1", state: state)
        )
    }

    @Test("an unknown event name fails naming event", arguments: ["heartbeat", "Run", "message", ""])
    func unknownEventName(name: String) {
        expectRejection(at: "event", "unknown workspace event") { try event(name, ["reason": "x"]) }
    }

    @Test func eventDataOutsideTheContractNamesTheMember() {
        expectRejection(at: "data.state", "is not one of") { try event("run", ["runId": "run-1", "state": "paused"]) }
        expectRejection(at: "data.runId", "non-empty") { try event("run", ["runId": "", "state": "started"]) }
        expectRejection(at: "data.state", "required member is missing") { try event("run", ["runId": "run-1"]) }
        expectRejection(at: "data.updatedAt", "-1") { try event("session", ["sessionId": "s", "updatedAt": -1]) }
        expectRejection(at: "data.updatedAt", "9007199254740992") {
            try event("session", ["sessionId": "s", "updatedAt": JSONEdit.number("9007199254740992")])
        }
        expectRejection(at: "data.sessionId", "non-empty") { try event("session", ["sessionId": "", "updatedAt": 1]) }
        expectRejection(at: "data.online", "expected a boolean") {
            try event("desktop", ["desktopId": "desk-1", "online": "yes"])
        }
        expectRejection(at: "data.desktopId", "required member is missing") { try event("desktop", ["online": true]) }
        expectRejection(at: "data.reason", "required member is missing") { try event("reset", [:]) }
        expectRejection(at: "data.reason", "got null") { try event("reset", ["reason": nil]) }
        expectRejection(at: "data.extra", "unexpected member") { try event("reset", ["reason": "r", "extra": 1]) }
        expectRejection(at: "data.revision", "required member is missing") {
            try event("overlay", ["settlementEpoch": 1, "blocks": []])
        }
        expectRejection(at: "data.blocks", "revision 0 carries no blocks") {
            try event("overlay", edited(Self.overlay.jsonValue, "revision", 0))
        }
        expectRejection(at: "data", "expected an object") { try event("desktop", [true]) }
    }

    @Test func malformedEventDataIsASyntaxError() throws {
        let error = try #require(throws: JSONError.self) {
            try WorkspaceEvent.decode(name: "run", data: Array(#"{"runId": "r",}"#.utf8))
        }
        #expect(error.kind == .syntax)
    }

    // MARK: docs/api/workspaces.md

    @Test func documentedRequestsAndAnswersDecode() throws {
        let examples = try APIDocsTests.examples().filter {
            $0.file == "workspaces.md" && $0.language == "json" && $0.tag == "value"
        }
        var methods: [String] = []
        var receipts: [WorkspaceSubmitReceipt] = []
        for example in examples {
            let value = try JSONReader().parse(example.body)
            guard case .object(let object) = value else {
                Issue.record("\(example): not an object")
                continue
            }
            if object["method"] != nil {
                let request = try WorkspaceRPCRequest.decode(json: Array(example.body.utf8))
                methods.append(request.method)
                switch request.method {
                case WorkspaceSubmission.method:
                    let submission = try WorkspaceSubmission.decode(params: request.paramsReader)
                    #expect(request.callKey == submission.callKey, "\(example)")
                    #expect(submission.request.jsonValue == value, "\(example): contract order")
                case WorkspaceRunStop.method:
                    let stop = try WorkspaceRunStop.decode(params: request.paramsReader)
                    #expect(request.callKey == stop.callKey, "\(example)")
                    #expect(stop.request.jsonValue == value, "\(example): contract order")
                case "files.chatAttachmentUpload" where request.callKey?.hasSuffix(":begin") == true:
                    methods.append("begin")
                    let upload = try AttachmentUploadRequest.decode(params: request.paramsReader)
                    #expect(upload.params == request.params, "\(example): contract order")
                    #expect(upload.size <= AttachmentUploadRequest.maximumSize)
                default:
                    break
                }
            } else if case .object(let result)? = object["result"], result["receipt"] != nil {
                let receipt = try WorkspaceRPCResult.decode(
                    json: Array(example.body.utf8), WorkspaceSubmitReceipt.decode)
                #expect(WorkspaceRPCResult.jsonValue(receipt.jsonValue) == value, "\(example): contract order")
                receipts.append(receipt)
            } else if case .object(let result)? = object["result"] {
                try Self.decodeDocumentedResult(result, body: example.body)
            } else {
                Issue.record("\(example): neither a request nor a result")
            }
        }
        for method in [WorkspaceSubmission.method, WorkspaceRunStop.method, "begin", "sessions.list"] {
            #expect(methods.contains(method), "no documented \(method) request")
        }
        let outcomes = receipts.map { receipt in
            switch receipt.outcome {
            case .accepted: "accepted"
            case .rejected: "rejected"
            }
        }
        #expect(outcomes.sorted() == ["accepted", "rejected"])
    }

    /// Decodes the other documented answers by the member that tells them apart.
    private static func decodeDocumentedResult(_ result: JSONObject, body: String) throws {
        let bytes = Array(body.utf8)
        if result["desktops"] != nil {
            #expect(try WorkspaceRPCResult.decode(json: bytes, WorkspaceDesktop.decodeList).isEmpty == false)
        } else if result["projects"] != nil {
            #expect(try WorkspaceRPCResult.decode(json: bytes, WorkspaceProject.decodeList).isEmpty == false)
        } else if result["sessions"] != nil {
            #expect(try WorkspaceRPCResult.decode(json: bytes, WorkspaceSessionSummary.decodeList).isEmpty == false)
        } else if result["chunkSize"] != nil {
            _ = try WorkspaceRPCResult.decode(json: bytes, AttachmentUploadBegin.decode)
        } else if result["state"] != nil {
            _ = try WorkspaceRPCResult.decode(json: bytes, WorkspaceRunStop.Result.decode)
        }
    }

    @Test func documentedEventStreamsDecode() throws {
        let examples = try APIDocsTests.examples().filter { $0.file == "workspaces.md" && $0.tag == "workspace-events" }
        var names: Set<String> = []
        for example in examples {
            var parser = EventStreamParser()
            for sse in try parser.feed(Array(example.body.utf8)) {
                let event = try WorkspaceEvent.decode(name: sse.type, data: sse.dataBytes)
                names.insert(event.name)
            }
        }
        #expect(names == ["overlay", "overlay.delta", "run", "session", "desktop", "reset"])
    }
}

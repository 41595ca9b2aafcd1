import Foundation
import SybilCore
import SybilWire
import Testing

@testable import SybilServer

/// Every example of docs/api/agent-room.md decodes with the Agent room's own Wire decoder
/// (chosen by its shape), its cursors are ones this server issues, and the multipart example
/// is a body the upload route accepts.
@Suite("Agent room docs", .timeLimit(.minutes(2)))
struct AgentRoomDocsTests {
    private static let page = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/api/agent-room.md")

    /// The fenced blocks with their fence line.
    private static func fences() throws -> [(fence: String, body: String)] {
        var found: [(String, String)] = []
        var open: String?
        var lines: [Substring] = []
        for line in try String(contentsOf: page, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("```") {
                if let fence = open {
                    found.append((fence, lines.joined(separator: "\n")))
                    open = nil
                } else {
                    open = String(line.dropFirst(3))
                    lines = []
                }
            } else if open != nil {
                lines.append(line)
            }
        }
        return found
    }

    private static func cursors(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            return object.members.flatMap { member -> [String] in
                if ["cursor", "nextCursor", "readCursor"].contains(member.key), case .string(let text) = member.value {
                    return [text]
                }
                return cursors(in: member.value)
            }
        case .array(let items): return items.flatMap(cursors(in:))
        default: return []
        }
    }

    @Test func everyValueExampleDecodesWithItsWireType() throws {
        var kinds: [String] = []
        for (fence, body) in try Self.fences() where fence == "json value" {
            let value = try JSONReader().parse(body)
            guard case .object(let object) = value else {
                Issue.record("an example that is not an object: \(body)")
                continue
            }
            let keys = Set(object.members.map(\.key))
            switch keys {
            case ["room", "capabilities"]:
                #expect(try AgentRoomDescriptor.decode(value, at: .root).attachments?.limits == .v1)
                kinds.append("descriptor")
            case let keys where keys.contains("messageId"):
                _ = try AgentRoomMessage.decode(value, at: .root)
                kinds.append("message")
            case ["messages", "nextCursor", "hasMoreBefore"]:
                _ = try AgentRoomPage.decode(value, at: .root)
                kinds.append("page")
            case let keys where keys.contains("requestId"):
                _ = try AgentRoomSubmission.decode(value, at: .root)
                kinds.append("submission")
            case ["receipt"]:
                _ = try AgentRoomReceipt.decode(value, at: .root)
                kinds.append("receipt")
            case ["cursor"]:
                kinds.append("mark-read")
            case ["readCursor", "unread"]:
                _ = try AgentReadState.decode(value, at: .root)
                kinds.append("read")
            case let keys where keys.contains("type"):
                _ = try AgentStreamEvent.decode(value, at: .root)
                kinds.append("event")
            case ["upload"]:
                _ = try AgentAttachment.decodeUploadAnswer(value, at: .root)
                kinds.append("upload")
            default:
                Issue.record("an example of unknown shape: \(keys.sorted())")
            }
            for cursor in Self.cursors(in: value) {
                #expect(AgentRoomCursor.sequence(of: cursor) != nil, "\(cursor) is a cursor the server issues")
            }
        }
        #expect(
            Set(kinds) == [
                "descriptor", "message", "page", "submission", "receipt", "mark-read", "read", "event", "upload",
            ])
    }

    @Test func theMultipartExampleIsABodyTheUploadRouteAccepts() throws {
        let (_, example) = try #require(try Self.fences().first { $0.fence == "http" })
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false)
        let blank = try #require(lines.firstIndex(of: ""))
        let contentType = try #require(
            lines[..<blank].first { $0.hasPrefix("Content-Type: ") }?.dropFirst("Content-Type: ".count))
        let body = Array((lines[(blank + 1)...].joined(separator: "\r\n") + "\r\n").utf8)
        let upload = try AgentUploadForm.read(body, contentType: String(contentType), limits: .v1)
        #expect(upload.uploadId == "0d9c6a4e-2b7f-4f0e-8b61-55a1c3e9d702")
        #expect(upload.fileName == "build.log")
        #expect(upload.mimeType == "text/plain")
        #expect(try AgentRoomService.check(upload, multipart: true).size == upload.file.size)
    }
}

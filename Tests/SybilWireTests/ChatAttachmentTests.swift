import SybilCore
import Testing

@testable import SybilWire

/// An ordinary chat's inline attachments in OpenAI's message format: text files fenced in the
/// text, images as `image_url` parts with `data:` URLs, and the stored form read back strictly.
@Suite("chat attachments")
struct ChatAttachmentTests {
    let text = ChatAttachment(
        name: "a.md", mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("x\n".utf8))
    let image = ChatAttachment(name: "p.gif", mimeType: "image/gif", kind: .image, bytes: Array("GIF89a".utf8))

    @Test func withoutAnImageTheContentIsOneString() {
        #expect(ChatAttachment.content("q", attachments: []) == "q")
        #expect(ChatAttachment.content("q", attachments: [text]) == "q\n\nAttached file a.md:\n```\nx\n```")
    }

    @Test func anImageMakesAnArrayOfPartsTextFirst() {
        #expect(
            ChatAttachment.content("q", attachments: [image, text])
                == [
                    ["type": "text", "text": "q\n\nAttached file a.md:\n```\nx\n```"],
                    ["type": "image_url", "image_url": ["url": "data:image/gif;base64,R0lGODlh"]],
                ])
    }

    @Test func theFenceOutgrowsEveryBacktickRunInTheFile() {
        let fenced = ChatAttachment(name: "f", mimeType: "text/plain", kind: .text, bytes: Array("````".utf8))
        #expect(ChatAttachment.inlineText("", attachments: [fenced]) == "Attached file f:\n`````\n````\n`````")
    }

    @Test func theStoredFormRoundTripsAndIsCheckedStrictly() throws {
        #expect(try ChatAttachment.decode(image.jsonValue, at: .root) == image)
        let wrongSize: JSONValue = ["name": "p", "type": "image/gif", "kind": "image", "size": 2, "data": "R0lGODlh"]
        #expect(throws: JSONError.self) { try ChatAttachment.decode(wrongSize, at: .root) }
        let wrongKind: JSONValue = ["name": "p", "type": "audio/x", "kind": "audio", "size": 6, "data": "R0lGODlh"]
        let error = #expect(throws: JSONError.self) { try ChatAttachment.decode(wrongKind, at: .root) }
        #expect(error?.path == JSONPath.root.appending(key: "kind"))
    }
}

import SybilTerminalInput
import Testing

@testable import SybilTUI

/// A terminal without bracketed paste types a pasted text one key at a time: a megabyte is a
/// million keys into the composer. Each key must cost what it changes, not the whole draft
/// (the draft used to be copied and counted again on every key, so 50 KB took minutes and a
/// megabyte hours). The edits stay exact at grapheme boundaries the keys cross.
@Suite("Composer typed paste", .timeLimit(.minutes(1)))
struct ComposerTypedPasteTests {
    /// What the buffer must agree with: the text rebuilt from scratch at every edit.
    private struct Reference {
        var text = ""
        var cursor = 0

        mutating func insert(_ piece: String) {
            let characters = Array(text)
            let head = String(characters[..<cursor]) + piece
            text = head + String(characters[cursor...])
            cursor = min(head.count, text.count)
        }

        mutating func deleteBackward() {
            guard cursor > 0 else { return }
            var characters = Array(text)
            characters.remove(at: cursor - 1)
            let head = String(characters[..<(cursor - 1)])
            text = String(characters)
            cursor = min(head.count, text.count)
        }
    }

    @Test func aLargeTextTypedKeyByKeyThroughTheDecoderArrivesWhole() {
        let line = String(repeating: "abcdefghij", count: 9) + "012345678\n"
        let text = String(repeating: line, count: 3_000) + "end"
        var decoder = TerminalInputDecoder()
        var app = TerminalApp(theme: .dark, size: TerminalSize(columns: 100, rows: 30))
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(start + 4096, bytes.count)
            for input in decoder.feed(bytes[start..<end]) { _ = app.handle(input, now: .zero) }
            start = end
        }
        #expect(app.composer.text == text)
        #expect(app.composer.cursor == text.count)
        #expect(app.composer.count == text.count)
    }

    @Test(arguments: [
        ["e", "\u{301}", "x"],
        ["🇩", "🇪", "🇫", "🇷", "🇮"],
        ["👩", "\u{200D}", "💻", " "],
        ["a", "\u{308}", "\u{308}", "b"],
    ])
    func keysThatJoinThePreviousGraphemeKeepTheCountAndCursor(_ keys: [String]) {
        var composer = ComposerBuffer(text: "start ")
        var reference = Reference(text: "start ", cursor: 6)
        for key in keys {
            composer.insert(key)
            reference.insert(key)
            #expect(composer.text == reference.text)
            #expect(composer.cursor == reference.cursor)
            #expect(composer.count == reference.text.count)
        }
    }

    @Test func editsInTheMiddleAgreeWithTheTextRebuiltFromScratch() {
        let pieces = ["a", "\u{301}", "🇩", "🇪", "\u{200D}", "👩", "\n", "你", " ", "\r\n", "\u{308}", "xy"]
        var composer = ComposerBuffer()
        var reference = Reference()
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            switch next(6) {
            case 0:
                let cursor = next(reference.text.count + 1)
                composer.cursor = cursor
                reference.cursor = cursor
            case 1:
                composer.deleteBackward()
                reference.deleteBackward()
            default:
                let piece = pieces[next(pieces.count)]
                composer.insert(piece)
                reference.insert(piece)
            }
            #expect(composer.text == reference.text)
            #expect(composer.cursor == reference.cursor)
            #expect(composer.count == reference.text.count)
        }
    }
}

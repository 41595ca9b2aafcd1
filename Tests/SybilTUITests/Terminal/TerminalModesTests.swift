import Testing

@testable import SybilTUI

@Suite struct TerminalModesTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func everyModeIsEnabledInOrder() {
        #expect(
            text(TerminalModes.fullScreen.enableSequence)
                == "\u{1B}[?1049h\u{1B}[?2004h\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h\u{1B}[?1004h\u{1B}[>1u\u{1B}[>4;2m"
        )
    }

    @Test func modesAreDisabledInReverseEndingWithCursorResetAndTheMainScreen() {
        #expect(
            text(TerminalModes.fullScreen.disableSequence)
                == "\u{1B}[?2026l\u{1B}[>4m\u{1B}[<u\u{1B}[?1004l\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?2004l"
                + "\u{1B}[?25h\u{1B}[0m\u{1B}[?1049l")
    }

    @Test func onlyTheChosenModesAreWritten() {
        let modes = TerminalModes(bracketedPaste: true, kittyKeyboard: true)
        #expect(text(modes.enableSequence) == "\u{1B}[?2004h\u{1B}[>1u")
        #expect(text(modes.disableSequence) == "\u{1B}[?2026l\u{1B}[<u\u{1B}[?2004l\u{1B}[?25h\u{1B}[0m")
        #expect(TerminalModes.none.enableSequence.isEmpty)
        #expect(text(TerminalModes.none.disableSequence) == "\u{1B}[?2026l\u{1B}[?25h\u{1B}[0m")
    }

    @Test func theQueriesAreTheStandardOnes() {
        #expect(text(TerminalQueries.backgroundColor) == "\u{1B}]11;?\u{1B}\\")
        #expect(text(TerminalQueries.keyboardEnhancement) == "\u{1B}[?u")
        #expect(text(TerminalQueries.deviceAttributes) == "\u{1B}[c")
        #expect(text(TerminalQueries.startup) == "\u{1B}]11;?\u{1B}\\\u{1B}[?u\u{1B}[c")
    }
}

@Suite struct ThemeChoiceTests {
    @Test func noColorWinsOverEverything() {
        let theme = ThemeChoice.resolve(
            environment: ["NO_COLOR": "1", "COLORFGBG": "0;15"], reportedBackground: (65535, 65535, 65535))
        #expect(theme.appearance == .monochrome)
    }

    @Test func anEmptyNoColorIsIgnored() {
        #expect(ThemeChoice.resolve(environment: ["NO_COLOR": ""], reportedBackground: nil).appearance == .dark)
    }

    @Test func aReportedBackgroundDecidesBeforeColorFgBg() {
        let light = ThemeChoice.resolve(environment: ["COLORFGBG": "15;0"], reportedBackground: (60000, 60000, 58000))
        #expect(light.appearance == .light)
        let dark = ThemeChoice.resolve(environment: ["COLORFGBG": "0;15"], reportedBackground: (4000, 4000, 5000))
        #expect(dark.appearance == .dark)
    }

    @Test(arguments: [
        ("15;0", Theme.Appearance.dark), ("0;15", .light), ("0;7", .light), ("7;0", .dark), ("0;default;15", .light),
        ("12;8", .dark), ("junk", .dark),
    ])
    func colorFgBgNamesTheBackgroundLast(value: String, appearance: Theme.Appearance) {
        #expect(
            ThemeChoice.resolve(environment: ["COLORFGBG": value], reportedBackground: nil).appearance == appearance)
    }

    @Test func nothingKnownMeansDark() {
        #expect(ThemeChoice.resolve(environment: [:], reportedBackground: nil).appearance == .dark)
    }

    @Test func reducedMotionIsOnlyTheValueOne() {
        #expect(ThemeChoice.reduceMotion(environment: ["SYBIL_REDUCE_MOTION": "1"]))
        #expect(!ThemeChoice.reduceMotion(environment: ["SYBIL_REDUCE_MOTION": "0"]))
        #expect(!ThemeChoice.reduceMotion(environment: [:]))
    }
}

import SybilTimeline
import Testing

/// Return, Shift+Return and a held Return in each composer on each platform (seed 003).
@Suite("Composer key decision", .timeLimit(.minutes(2)))
struct ComposerKeyDecisionTests {
    typealias Decision = ComposerKeyDecision

    @Test(
        "the table",
        arguments: [
            // Quick Question: Return submits on every platform.
            (Decision.Composer.quickQuestion, Decision.Platform.phone, false, false, Decision.Action.submit),
            (.quickQuestion, .desktop, false, false, .submit),
            (.quickQuestion, .phone, true, false, .insertNewline),
            (.quickQuestion, .desktop, true, false, .insertNewline),
            (.quickQuestion, .phone, false, true, .ignore),
            (.quickQuestion, .desktop, false, true, .ignore),
            (.quickQuestion, .desktop, true, true, .insertNewline),
            // The regular composer: Return submits on a Mac or terminal, adds a line on a phone.
            (.regular, .desktop, false, false, .submit),
            (.regular, .desktop, true, false, .insertNewline),
            (.regular, .desktop, false, true, .ignore),
            (.regular, .phone, false, false, .insertNewline),
            (.regular, .phone, true, false, .insertNewline),
            (.regular, .phone, false, true, .insertNewline),
        ])
    func returnKey(
        composer: Decision.Composer, platform: Decision.Platform, shift: Bool, isRepeat: Bool, action: Decision.Action
    ) {
        let event = Decision.Event(key: .return, shift: shift, isRepeat: isRepeat)
        #expect(Decision.action(for: event, in: composer, on: platform) == action)
    }

    @Test func otherKeysPassThroughEverywhere() {
        for composer in Decision.Composer.allCases {
            for platform in Decision.Platform.allCases {
                for shift in [false, true] {
                    for isRepeat in [false, true] {
                        let event = Decision.Event(key: .other, shift: shift, isRepeat: isRepeat)
                        #expect(Decision.action(for: event, in: composer, on: platform) == .passThrough)
                    }
                }
            }
        }
    }
}

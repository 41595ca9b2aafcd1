/// What a composer does with a key press (seed 003 "Quick Question"): Return submits in Quick
/// Question everywhere and in the regular composer on a Mac or in a terminal; on a phone the
/// regular chat/search composer keeps Return for a new line. Shift+Return always inserts a new
/// line. A held Return (a key-repeat event) never submits again. A pure rule: the front end
/// reports the key, the composer and the platform, and applies the action it gets.
public enum ComposerKeyDecision {
    /// Which composer has the focus.
    public enum Composer: Sendable, Hashable, CaseIterable {
        /// The Quick Question prompt.
        case quickQuestion
        /// The regular chat or search composer.
        case regular
    }

    /// Where the composer runs.
    public enum Platform: Sendable, Hashable, CaseIterable {
        /// iPhone or iPad: the on-screen keyboard's Return means a new line in regular composers.
        case phone
        /// Mac, or the terminal app: Return sends.
        case desktop
    }

    /// The key that was pressed.
    public enum Key: Sendable, Hashable {
        /// Return (or Enter).
        case `return`
        /// Any other key: the text field handles it.
        case other
    }

    /// One key press as the front end saw it.
    public struct Event: Sendable, Hashable {
        /// The key.
        public var key: Key
        /// Whether Shift was held.
        public var shift: Bool
        /// Whether this is an automatic repeat of a held key.
        public var isRepeat: Bool

        /// Creates an event.
        public init(key: Key, shift: Bool = false, isRepeat: Bool = false) {
            self.key = key
            self.shift = shift
            self.isRepeat = isRepeat
        }
    }

    /// What the composer does.
    public enum Action: Sendable, Hashable {
        /// Send the prompt.
        case submit
        /// Insert a line break at the caret.
        case insertNewline
        /// Swallow the key (a held Return after a submit).
        case ignore
        /// Not a composer key: let the text field handle it.
        case passThrough
    }

    /// The action for `event` in `composer` on `platform`.
    public static func action(for event: Event, in composer: Composer, on platform: Platform) -> Action {
        guard event.key == .return else { return .passThrough }
        if event.shift { return .insertNewline }
        let returnSubmits =
            switch (composer, platform) {
            case (.quickQuestion, _): true
            case (.regular, .desktop): true
            case (.regular, .phone): false
            }
        guard returnSubmits else { return .insertNewline }
        return event.isRepeat ? .ignore : .submit
    }
}

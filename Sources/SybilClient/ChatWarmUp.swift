/// What woke the backend (SPEC §5.1): the moments a chat surface asks for a warm-up.
public enum ChatWarmUpTrigger: Sendable, Hashable, CaseIterable {
    /// The app came back to the foreground.
    case returnedToForeground
    /// The person switched tabs.
    case switchedTab
    /// The person entered a chat.
    case enteredChat
}

/// The warm-up seam of the chat models: they say when, the implementation decides whether a
/// health check runs (single flight and the 60 s warm window are its job, not theirs). The app
/// passes its `WarmUpManager` (see `WarmUpManager+ChatWarmUp.swift`); tests pass a recorder.
///
/// The method is not called `trigger(_:)` so that it never competes with
/// `WarmUpManager.trigger(_:)`, whose enum has the same case names.
@MainActor
public protocol ChatWarmUp: AnyObject {
    /// Asks for a warm-up because of `trigger`; returns at once.
    func requestWarmUp(_ trigger: ChatWarmUpTrigger)
}

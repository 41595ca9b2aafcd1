/// What standard error shows while a reply has not started: a spinner frame, what is being
/// waited for ("waking the service" while the warm-up's health check is under way, else
/// "waiting for the reply") and the elapsed whole seconds, as a pure function of the elapsed
/// time and that state. ``WaitingIndicator`` draws it on a clock.
enum WaitingSpinner {
    /// The frames, one per ``frameInterval``.
    static let frames: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// How long each frame shows.
    static let frameInterval = Duration.milliseconds(100)
    /// What the line says while the warm-up wakes a cold service.
    static let wakingText = "waking the service"
    /// What the line says while the request is out and nothing has come back.
    static let waitingText = "waiting for the reply"

    /// The line after `elapsed`, `waking` while the warm-up is under way: e.g.
    /// `⠙ waking the service 1s`.
    static func line(elapsed: Duration, waking: Bool) -> String {
        let elapsed = max(elapsed, .zero)
        let frame = frames[Int((elapsed / frameInterval).rounded(.down)) % frames.count]
        let seconds = elapsed.components.seconds
        return "\(frame) \(waking ? wakingText : waitingText) \(seconds)s"
    }
}

import SybilClient
import SybilMotion

/// The declaration of `sybil meditate`: options and help.
extension MeditateCommand {
    static let spec = CommandSpec<Options>(
        name: MeditateCommand.name, overview: "Meditate with a calm timer; the session is saved as a record.",
        usage: .lines(["sybil meditate [--minutes N] [--dark | --light]"]),
        discussion: """
            Draws a slow breathing scene (in 5 s, out 7 s) on the terminal's alternate screen
            with the time left under it. When the time is up, or when Ctrl+C ends the session
            early, the screen is restored and a meditation record of the time spent (whole
            seconds) is saved on this device ($XDG_DATA_HOME/sybil/client/records.sqlite);
            `sybil records sync` uploads it later. Under a second saves nothing. Colours are
            24-bit ANSI; NO_COLOR gives plain characters.
            """,
        options: [
            .integer(
                "--minutes", into: \.minutes, range: MeditationSession.minutesRange,
                default: MeditationSession.defaultMinutes,
                help: "How long to meditate, {range} minutes (default {default}).")
        ] + BreatheCommand.themeOptions(\.theme),
        exitStatus: """
            0 success (ended on time or early), 64 usage error (also when standard output is
            not a terminal), 73 the record cannot be saved.
            """)

    /// The options of `sybil meditate`.
    struct Options: CommandOptions {
        var minutes = 0
        var theme = BreathingTheme.Appearance.dark
    }
}

import SybilClient

/// The declaration of `sybil meditate`: options and help.
extension CommandSpec {
    static let meditate = CommandSpec(
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
        options: [MeditateCommand.Option.minutes, MeditateCommand.Option.dark, MeditateCommand.Option.light],
        exitStatus: """
            0 success (ended on time or early), 64 usage error (also when standard output is
            not a terminal), 73 the record cannot be saved.
            """)
}

extension MeditateCommand {
    /// The options of `sybil meditate`.
    enum Option {
        static let minutes = OptionSpec.integer(
            "--minutes", range: MeditationSession.minutesRange, default: MeditationSession.defaultMinutes,
            help: "How long to meditate, {range} minutes (default {default}).")
        static let dark = BreatheCommand.Option.dark
        static let light = BreatheCommand.Option.light
    }
}

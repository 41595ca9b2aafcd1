import SybilMotion

/// The declaration of `sybil breathe`: options and help.
extension BreatheCommand {
    static let spec = CommandSpec<Options>(
        name: BreatheCommand.name, overview: "Breathe along with the animated scene: sky, water and a guidance line.",
        usage: .lines(["sybil breathe [--seconds N] [--dark | --light] [--frames N]"]),
        discussion: """
            Draws the breathing scene on the terminal's alternate screen at 30 frames a second
            (inhale 4 s, hold 2 s, exhale 6 s) for N seconds, then restores the screen; Ctrl+C
            ends it early. With --frames it prints frames one after another instead, for scripts
            and tests. Colours are 24-bit ANSI; NO_COLOR, or an output that is not a terminal,
            gives plain characters. The size follows $COLUMNS and $LINES, else the terminal's,
            else 80x24.
            """,
        options: [
            .integer(
                "--seconds", into: \.seconds, range: 1...3_600, shownDefault: defaultSeconds,
                help:
                    "How long to breathe ({range}; default {default}). With --frames,\nthe time the frames span (default: 1/30 s per frame)."
            )
        ] + themeOptions(\.theme) + [
            .integer(
                "--frames", into: \.frames, range: 1...10_000,
                help: "Print N frames ({range}), each after a status line, and\nexit without animating.")
        ],
        exitStatus: """
            0 success, 64 usage error (also when animating to an output that is not a
            terminal: use --frames).
            """)

    /// `--dark` and `--light`, bound to `path`: the last given wins.
    static func themeOptions<Options: CommandOptions>(
        _ path: WritableKeyPath<Options, BreathingTheme.Appearance> & Sendable
    ) -> [OptionSpec<Options>] {
        [
            .flag("--dark", into: path, setting: .dark, help: "The dark theme (the default)."),
            .flag("--light", into: path, setting: .light, help: "The light theme."),
        ]
    }
}

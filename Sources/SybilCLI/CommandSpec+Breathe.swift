/// The declaration of `sybil breathe`: options and help.
extension CommandSpec {
    static let breathe = CommandSpec(
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
            BreatheCommand.Option.seconds, BreatheCommand.Option.dark, BreatheCommand.Option.light,
            BreatheCommand.Option.frames,
        ],
        exitStatus: """
            0 success, 64 usage error (also when animating to an output that is not a
            terminal: use --frames).
            """)
}

extension BreatheCommand {
    /// The options of `sybil breathe`.
    enum Option {
        static let seconds = OptionSpec.integer(
            "--seconds", range: 1...3_600, default: BreatheCommand.defaultSeconds,
            help:
                "How long to breathe ({range}; default {default}). With --frames,\nthe time the frames span (default: 1/30 s per frame)."
        )
        static let dark = OptionSpec.flag("--dark", help: "The dark theme (the default).")
        static let light = OptionSpec.flag("--light", help: "The light theme.")
        static let frames = OptionSpec.integer(
            "--frames", range: 1...10_000,
            help: "Print N frames ({range}), each after a status line, and\nexit without animating.")
    }
}

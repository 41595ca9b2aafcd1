extension HelpText {
    static let breathe = """
        OVERVIEW: Breathe along with the animated scene: sky, water and a guidance line.

        USAGE: sybil breathe [--seconds N] [--dark | --light] [--frames N]

        Draws the breathing scene on the terminal's alternate screen at 30 frames a second
        (inhale 4 s, hold 2 s, exhale 6 s) for N seconds, then restores the screen; Ctrl+C
        ends it early. With --frames it prints frames one after another instead, for scripts
        and tests. Colours are 24-bit ANSI; NO_COLOR, or an output that is not a terminal,
        gives plain characters. The size follows $COLUMNS and $LINES, else the terminal's,
        else 80x24.

        OPTIONS:
          --seconds N             How long to breathe (1 to 3600; default 60). With --frames,
                                  the time the frames span (default: 1/30 s per frame).
          --dark                  The dark theme (the default).
          --light                 The light theme.
          --frames N              Print N frames (1 to 10000), each after a status line, and
                                  exit without animating.
          -h, --help              Show this help.

        EXIT STATUS:
          0 success, 64 usage error (also when animating to an output that is not a
          terminal: use --frames).

        """
}

/// Chooses the theme and the motion setting from the environment and what the terminal
/// reported. Pure: the environment is passed in.
public enum ThemeChoice {
    /// The theme: `.monochrome` when `NO_COLOR` is set and not empty; otherwise the reported
    /// background's (OSC 11) brightness; otherwise `COLORFGBG`'s last field, the background's
    /// palette index (7 and 15 are light, any other number dark); otherwise `.dark`.
    public static func resolve(
        environment: [String: String], reportedBackground: (red: UInt16, green: UInt16, blue: UInt16)?
    ) -> Theme {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .monochrome }
        if let background = reportedBackground {
            return Theme.forBackground(red: background.red, green: background.green, blue: background.blue)
        }
        if let value = environment["COLORFGBG"],
            let last = value.split(separator: ";", omittingEmptySubsequences: false).last,
            let index = Int(last.filter { $0 != " " })
        {
            return index == 7 || index == 15 ? .light : .dark
        }
        return .dark
    }

    /// Whether animation is turned off: `SYBIL_REDUCE_MOTION=1`.
    public static func reduceMotion(environment: [String: String]) -> Bool {
        environment["SYBIL_REDUCE_MOTION"] == "1"
    }
}

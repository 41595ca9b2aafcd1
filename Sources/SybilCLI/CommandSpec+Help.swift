/// The `--help` text, generated from the declaration. Tests compare it with golden files
/// verbatim, so a change here is a change of the documented interface.
extension CommandSpec {
    /// The whole `--help` text.
    var help: String {
        var sections = ["OVERVIEW: \(overview)", usageText]
        if let discussion { sections.append(discussion) }
        if !subcommands.isEmpty {
            sections.append(HelpLayout.section(subcommandTitle, subcommands.map { ($0.label, $0.help) }))
        }
        if let notes { sections.append(notes) }
        if !arguments.isEmpty {
            sections.append(HelpLayout.section("ARGUMENTS", arguments.map { ($0.name, $0.help) }))
        }
        let options = allOptions
        if !options.isEmpty {
            sections.append(HelpLayout.section("OPTIONS", options.map { ($0.about.label, $0.about.helpText) }))
        }
        if let exitStatus {
            sections.append("EXIT STATUS:\n" + HelpLayout.indented(exitStatus, by: 2))
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `USAGE: …`, continuation forms aligned under the first.
    var usageText: String {
        let argumentWords = arguments.map(\.usage)
        let lines: [String]
        switch usage {
        case .summary:
            lines = [([name, "[<options>]"] + argumentWords).joined(separator: " ")]
        case .spelled:
            let spelled = options.filter { !$0.names.contains("--help") }.map { "[\($0.about.label)]" }
            lines = [([name] + spelled + argumentWords).joined(separator: " ")]
        case .subcommands(let optional):
            lines = ["\(name) \(optional ? "[<subcommand>]" : "<subcommand>") [<options>]"]
        case .lines(let written):
            lines = written
        }
        let prefix = "USAGE: "
        let continuation = String(repeating: " ", count: prefix.count)
        return prefix + lines.joined(separator: "\n" + continuation)
    }
}

/// How every help text lays out its two-column sections.
enum HelpLayout {
    /// The column where help text starts in every two-column section.
    static let helpColumn = 26

    /// `TITLE:` and its rows: the label at column 2, the help at ``helpColumn`` (on the next
    /// line when the label reaches it), continuation lines under the help.
    static func section(_ title: String, _ rows: [(label: String, help: String)]) -> String {
        let pad = String(repeating: " ", count: helpColumn)
        let lines = rows.map { row in
            let label = "  " + row.label
            let help = row.help.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + pad)
            return label.count < helpColumn
                ? label + String(repeating: " ", count: helpColumn - label.count) + help
                : label + "\n" + pad + help
        }
        return "\(title):\n" + lines.joined(separator: "\n")
    }

    /// `text` with every line indented by `count` spaces.
    static func indented(_ text: String, by count: Int) -> String {
        let pad = String(repeating: " ", count: count)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
    }
}

import Testing

@testable import SybilCLI

/// Rules every declared command keeps, checked over all of them at once.
@Suite("Every command's declaration", .timeLimit(.minutes(2)))
struct CommandDeclarationTests {
    /// Every integer option accepts its bounds and refuses one past each, naming itself.
    @Test func everyIntegerOptionIsRangeCheckedAtItsBoundaries() throws {
        var checked = 0
        for spec in SybilCommandLine.declarations {
            for option in spec.optionHelp {
                guard case .integer(let range) = option.kind else { continue }
                for inside in [range.lowerBound, range.upperBound] {
                    #expect(try spec.check([option.name, String(inside)]), "\(spec.name) \(option.name)")
                }
                let below = range.lowerBound == Int.min ? "-9223372036854775809" : String(range.lowerBound - 1)
                let above = range.upperBound == Int.max ? "9223372036854775808" : String(range.upperBound + 1)
                for outside in [below, above, "x", ""] {
                    #expect(
                        throws: UsageError(
                            command: spec.name,
                            message:
                                "\(option.name) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(outside)'"
                        )
                    ) { try spec.check([option.name, outside]) }
                }
                checked += 1
            }
        }
        #expect(checked >= 15)
    }

    @Test func everyOptionHasHelpThatFitsAndNamesItsRange() {
        for spec in SybilCommandLine.declarations {
            for option in spec.optionHelp {
                #expect(!option.help.isEmpty, "\(spec.name) \(option.name)")
                #expect(!option.helpText.contains("{"), "\(spec.name) \(option.name): a placeholder is left")
                if case .integer(let range) = option.kind, range.upperBound != Int.max {
                    #expect(option.help.contains("{range}"), "\(spec.name) \(option.name) does not state its range")
                }
            }
            for line in spec.help.split(separator: "\n") {
                #expect(line.count <= 90, "\(spec.name): \(line)")
            }
        }
    }

    @Test func everyCommandAcceptsHelpAndRefusesAnUnknownOption() throws {
        for spec in SybilCommandLine.declarations where !spec.hasSubcommands {
            #expect(try spec.check(["--help"]) == false, "\(spec.name)")
            #expect(try spec.check(["-h"]) == false, "\(spec.name)")
            #expect(throws: UsageError(command: spec.name, message: "unknown option '--bogus'")) {
                try spec.check(["--bogus"])
            }
        }
    }

    @Test func optionNamesAreUniqueWithinACommand() {
        for spec in SybilCommandLine.declarations {
            let names = spec.optionHelp.flatMap(\.names)
            #expect(Set(names).count == names.count, "\(spec.name): \(names)")
        }
    }

    /// Each command and group is listed once, and every command `sybil` runs is among them.
    @Test func theDeclarationsCoverEveryCommandOnce() {
        let names = SybilCommandLine.declarations.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        for entry in SybilCommandLine.commands.entries {
            #expect(names.contains("sybil \(entry.name)"), "sybil \(entry.name)")
        }
    }
}

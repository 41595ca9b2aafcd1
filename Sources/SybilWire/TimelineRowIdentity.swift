/// The typed identity of a timeline row: its splice key.
///
/// Rows are matched, replaced and confirmed only through this identity, never through their
/// text or timestamp. Within one page (or one overlay) splice keys are unique.
public enum TimelineRowIdentity: Sendable, Hashable, CustomStringConvertible {
    /// A canonical row, by row id.
    case row(String)
    /// A live user row, by the operation id of the submission that created it.
    case operation(String)
    /// Any other live row, by its run and row id.
    case runRow(runId: String, rowId: String)

    /// `row:<id>`, `operation:<id>` or `run:<runId>/row:<id>`; distinct identities have distinct
    /// descriptions. A run id holding `/` or `%` is percent-encoded (`%2F`, `%25`), so the
    /// first `/` always ends it: `a/row:b` and `b/row:c` of runs `a` and `a/row:b` differ.
    public var description: String {
        switch self {
        case .row(let id): "row:\(id)"
        case .operation(let id): "operation:\(id)"
        case .runRow(let runId, let rowId): "run:\(Self.encoded(runId))/row:\(rowId)"
        }
    }

    /// `runId` with `%` and `/` percent-encoded; unchanged when it holds neither.
    private static func encoded(_ runId: String) -> String {
        guard runId.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") }) else { return runId }
        var result = ""
        for character in runId.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case "/": result += "%2F"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

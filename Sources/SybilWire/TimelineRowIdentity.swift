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

    /// `row:<id>`, `operation:<id>` or `run:<runId>/row:<id>`.
    public var description: String {
        switch self {
        case .row(let id): "row:\(id)"
        case .operation(let id): "operation:\(id)"
        case .runRow(let runId, let rowId): "run:\(runId)/row:\(rowId)"
        }
    }
}

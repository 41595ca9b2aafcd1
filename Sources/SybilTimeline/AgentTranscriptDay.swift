/// A calendar day (proleptic Gregorian) in the transcript's time zone: what a date separator
/// names. The front end formats it; the engine only decides where days change.
public struct AgentTranscriptDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 in the time zone.
    public let dayNumber: Int64
    /// The year, e.g. 2026.
    public let year: Int
    /// The month, 1…12.
    public let month: Int
    /// The day of the month, 1…31.
    public let day: Int

    /// The day `dayNumber` days after 1970-01-01 (negative before).
    public init(dayNumber: Int64) {
        self.dayNumber = dayNumber
        // Howard Hinnant's civil_from_days: exact for every day in range, no calendar object.
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
    }

    /// The day holding `milliseconds` since 1970 UTC at a UTC offset of `offsetSeconds`.
    public init(milliseconds: Int64, offsetSeconds: Int) {
        func floorDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
            let quotient = value / divisor
            return value % divisor < 0 ? quotient - 1 : quotient
        }
        self.init(dayNumber: floorDivision(floorDivision(milliseconds, 1_000) + Int64(offsetSeconds), 86_400))
    }

    /// `2026-10-14`.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    public static func < (lhs: AgentTranscriptDay, rhs: AgentTranscriptDay) -> Bool { lhs.dayNumber < rhs.dayNumber }
}

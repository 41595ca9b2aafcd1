/// What one seed of a simulation did, or, summed by ``SimulationSweep``, a whole run.
protocol SimulationSummary: Sendable {
    init()
    var steps: Int { get set }
    var requests: Int { get set }
    var faults: [NetworkFault: Int] { get set }
    /// The counts only this simulation keeps, each with the words its report gives it, in the
    /// report's order.
    static var ownCounts: [(name: String, count: WritableKeyPath<Self, Int>)] { get }
}

extension SimulationSummary {
    /// Adds every count of `other`.
    mutating func add(_ other: Self) {
        steps += other.steps
        requests += other.requests
        for (fault, count) in other.faults { faults[fault, default: 0] += count }
        for (_, count) in Self.ownCounts { self[keyPath: count] += other[keyPath: count] }
    }

    /// The counts only this simulation keeps, as its report says them ("3 sends, 1 relaunches").
    var ownCountsReport: String {
        Self.ownCounts.map { "\(self[keyPath: $0.count]) \($0.name)" }.joined(separator: ", ")
    }
}

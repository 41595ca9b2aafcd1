/// What one seed of a simulation did, or, summed by ``SimulationSweep``, a whole run.
protocol SimulationSummary: Sendable {
    init()
    var steps: Int { get set }
    var requests: Int { get set }
    var faults: [NetworkFault: Int] { get set }
    /// The counts only this simulation keeps, as its report line says them ("3 sends, …").
    var ownCounts: String { get }
    /// Adds `other`'s counts that only this simulation keeps.
    mutating func addOwnCounts(_ other: Self)
}

extension SimulationSummary {
    /// Adds every count of `other`.
    mutating func add(_ other: Self) {
        steps += other.steps
        requests += other.requests
        for (fault, count) in other.faults { faults[fault, default: 0] += count }
        addOwnCounts(other)
    }
}

import SybilStore

/// What the driver remembers between its lives: per surface, the highest message index it has
/// queued, and how often it started. Saved atomically (one `name value` line each) after each
/// message is in its surface's store; a kill between the two is recovered by
/// ``DeliveryDriver`` from the stores themselves (the highest index a store holds wins).
public struct DriverProgress: Sendable, Hashable {
    /// The highest queued index per surface (absent: none yet).
    public var queuedThrough: [DeliveryPlan.Surface: Int] = [:]
    /// How many times the driver started.
    public var launches = 0

    /// Empty progress.
    public init() {}

    /// Why saved progress could not be read.
    public struct Unreadable: Error, CustomStringConvertible {
        /// The line that could not be read.
        public var line: String
        public var description: String { "the driver's progress has an unreadable line: '\(line)'" }
    }

    /// The progress saved at `path`, or empty progress when there is none.
    public static func load(_ path: String) throws -> DriverProgress {
        guard let bytes = try AtomicFile.read(path) else { return DriverProgress() }
        var progress = DriverProgress()
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Int(parts[1]), value >= 0 else {
                throw Unreadable(line: String(line))
            }
            if parts[0] == "launches" {
                progress.launches = value
            } else if let surface = DeliveryPlan.Surface.allCases.first(where: { $0.description == parts[0] }) {
                progress.queuedThrough[surface] = value
            } else {
                throw Unreadable(line: String(line))
            }
        }
        return progress
    }

    /// Saves the progress at `path` atomically.
    public func save(_ path: String) throws {
        var text = "launches \(launches)\n"
        for surface in DeliveryPlan.Surface.allCases {
            if let index = queuedThrough[surface] { text += "\(surface) \(index)\n" }
        }
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    /// Raises the mark of `surface` to `index` when it is higher.
    public mutating func raise(_ surface: DeliveryPlan.Surface, to index: Int) {
        queuedThrough[surface] = max(queuedThrough[surface] ?? -1, index)
    }
}

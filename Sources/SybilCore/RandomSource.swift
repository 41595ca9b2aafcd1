/// A source of random 64-bit values, injected wherever logic needs randomness (jitter, IDs),
/// so that tests can seed it and replay exactly.
public protocol RandomSource: Sendable {
    /// The next 64 random bits.
    func nextUInt64() -> UInt64
}

extension RandomSource {
    /// A uniformly distributed value in `0 ..< 1`, using the top 53 bits.
    public func nextUnitInterval() -> Double {
        Double(nextUInt64() >> 11) * 0x1.0p-53
    }

    /// A uniformly distributed value in `0 ..< upperBound` (Lemire's unbiased method).
    public func next(below upperBound: UInt64) -> UInt64 {
        precondition(upperBound > 0, "upperBound must be positive")
        var generator = RandomSourceGenerator(source: self)
        return UInt64.random(in: 0..<upperBound, using: &generator)
    }
}

/// Adapts a ``RandomSource`` to the standard library's `RandomNumberGenerator`, so
/// ``RandomSource/next(below:)`` can use the standard library's unbiased bounded draw.
struct RandomSourceGenerator<Source: RandomSource>: RandomNumberGenerator {
    /// The wrapped source.
    let source: Source

    /// The next 64 random bits from the source.
    mutating func next() -> UInt64 {
        source.nextUInt64()
    }
}

/// The operating system's cryptographically secure generator: the live default.
public struct SystemRandomSource: RandomSource {
    /// Creates the live random source.
    public init() {}

    /// The next 64 random bits from the system generator.
    public func nextUInt64() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

/// A deterministic SplitMix64 generator: the same seed gives the same sequence on every
/// platform. Used by tests and by commands that take `--seed`.
public final class SeededRandomSource: RandomSource {
    private let state: Locked<UInt64>

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = Locked(seed)
    }

    /// The next value of the SplitMix64 sequence.
    public func nextUInt64() -> UInt64 {
        state.withLock { state in
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}

import SybilCore
import Testing

@Suite("Random sources and ID generators", .timeLimit(.minutes(2)))
struct RandomSourceTests {
    @Test func splitMix64MatchesTheReferenceSequence() {
        // Reference output of SplitMix64 (Steele, Lea, Flood 2014) for seed 1234567.
        let source = SeededRandomSource(seed: 1_234_567)
        let expected: [UInt64] = [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ]
        #expect((0..<5).map { _ in source.nextUInt64() } == expected)
    }

    @Test func sameSeedReplaysTheSameSequence() {
        let first = SeededRandomSource(seed: 42)
        let second = SeededRandomSource(seed: 42)
        let other = SeededRandomSource(seed: 43)
        let a = (0..<8).map { _ in first.nextUInt64() }
        #expect(a == (0..<8).map { _ in second.nextUInt64() })
        #expect(a != (0..<8).map { _ in other.nextUInt64() })
    }

    @Test func unitIntervalStaysBelowOne() {
        struct Fixed: RandomSource {
            let value: UInt64
            func nextUInt64() -> UInt64 { value }
        }
        #expect(Fixed(value: 0).nextUnitInterval() == 0)
        #expect(Fixed(value: .max).nextUnitInterval() < 1)
        #expect(Fixed(value: 1 << 63).nextUnitInterval() == 0.5)
    }

    @Test func nextBelowStaysInRange() {
        let source = SeededRandomSource(seed: 7)
        for bound in [1, 2, 3, 10, 1_000] as [UInt64] {
            for _ in 0..<200 {
                #expect(source.next(below: bound) < bound)
            }
        }
    }

    @Test func uuidsAreVersion4AndDeterministicWithASeed() {
        let generator = RandomUUIDGenerator(source: SeededRandomSource(seed: 99))
        let replay = RandomUUIDGenerator(source: SeededRandomSource(seed: 99))
        var seen = Set<String>()
        for _ in 0..<100 {
            let id = generator.makeID()
            #expect(id == replay.makeID())
            let parts = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { "0123456789abcdef-".contains($0) }, "\(id)")
            #expect(parts[2].first == "4", "version nibble in \(id)")
            #expect("89ab".contains(parts[3].first!), "variant nibble in \(id)")
            seen.insert(id)
        }
        #expect(seen.count == 100)
    }

    @Test func systemGeneratorMakesDistinctIDs() {
        let generator = RandomUUIDGenerator()
        #expect(generator.makeID() != generator.makeID())
    }
}

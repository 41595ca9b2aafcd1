import Foundation
import SybilFuzzTargets
import Testing

/// Replays the fuzz corpus kept in the repository (`fuzz/corpus/<target>/`) and every input
/// that once crashed a parser or broke an invariant (`fuzz/regressions/<target>/`) through the
/// fuzz targets: the regression suite of the fuzzing, run without the fuzzer runtime.
@Suite("Fuzz corpus replay", .timeLimit(.minutes(2)))
struct FuzzCorpusReplayTests {
    /// The repository's `fuzz` folder, found from this file's path.
    static let corpus = FuzzCorpus(
        root: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fuzz", isDirectory: true))

    @Test("every kept input passes its target", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let seeds = try FuzzCorpus.files(in: Self.corpus.folders(for: target)[0])
        #expect(seeds.count >= 5, "fuzz/corpus/\(target.rawValue)/ should hold the seed corpus")
        let files = try Self.corpus.files(for: target)
        let failures = try FuzzCorpus.replay(files, through: target)
        for (file, failure) in failures {
            Issue.record("\(file.lastPathComponent): \(failure.message)")
        }
    }

    @Test("the seeded pieces cover the input exactly, in order")
    func seededPiecesCoverTheInput() {
        let bytes = Array("data: one\r\n\r\nid: 7\n".utf8)
        for (name, chunks) in FuzzSplits.chunkings(of: bytes) {
            #expect(Array(chunks.joined()) == bytes, "\(name)")
            #expect(chunks.allSatisfy { !$0.isEmpty }, "\(name)")
        }
        #expect(FuzzSplits.seededPieces(of: bytes).count > 1)
        #expect(FuzzSplits.seededPieces(of: bytes) == FuzzSplits.seededPieces(of: bytes))
    }
}

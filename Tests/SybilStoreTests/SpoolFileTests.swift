import Foundation
import SybilStore
import Testing

@Suite("Spool files: written in pieces, renamed into place whole", .timeLimit(.minutes(2)))
struct SpoolFileTests {
    struct SimulatedCrash: Error {}

    /// A fresh directory per test, removed afterwards.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("sybil-spool-\(UUID().uuidString.prefix(8))").path
        try AtomicFile.createDirectory(path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private func names(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test(
        "a crash after any step of a commit leaves no file at the final name or the whole file",
        arguments: SpoolFile.Step.allCases)
    func crashAfterStep(step: SpoolFile.Step) throws {
        try withDirectory { directory in
            let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            var spool: SpoolFile? = try SpoolFile.created(in: directory + "/uploads", prefix: "tmp-")
            let temporary = try #require(spool?.path)
            try spool?.append(Array(bytes[..<100_000]))
            try spool?.append(Array(bytes[100_000...]))
            #expect(throws: SimulatedCrash.self) {
                try spool?.commit(to: directory + "/uploads/final") { reached in
                    if reached == step { throw SimulatedCrash() }
                }
            }
            // The process "dies": its handle goes without the commit finishing.
            spool = nil
            let renamed = step != .synced
            #expect(try AtomicFile.read(directory + "/uploads/final") == (renamed ? bytes : nil), "after \(step)")
            #expect(try AtomicFile.read(temporary) == (renamed ? nil : bytes), "after \(step)")
        }
    }

    @Test func aCreatedSpoolReleasedUncommittedIsRemovedAndACommittedOneStays() throws {
        try withDirectory { directory in
            var abandoned: SpoolFile? = try SpoolFile.created(in: directory, prefix: "tmp-")
            try abandoned?.append([1, 2, 3])
            #expect(try names(directory).count == 1)
            abandoned = nil
            #expect(try names(directory).isEmpty)

            var kept: SpoolFile? = try SpoolFile.created(in: directory, prefix: "tmp-")
            try kept?.append([4, 5])
            try kept?.commit(to: directory + "/kept")
            #expect(throws: (any Error).self) { try kept?.append([6]) }
            kept = nil
            #expect(try names(directory) == ["kept"])
            #expect(try AtomicFile.read(directory + "/kept") == [4, 5])
        }
    }

    @Test func anOpenedSpoolTakesChunksInAnyOrderAndOutlivesItsHandle() throws {
        try withDirectory { directory in
            let path = directory + "/parts/upload.part"
            do {
                let spool = try SpoolFile.opened(path)
                try spool.write([5, 6], at: 4)
                try spool.sync()
                #expect(spool.size == 6)
            }
            // Opened again (a resumed upload): the bytes are there, and the hole reads as zeros.
            let spool = try SpoolFile.opened(path)
            #expect(spool.size == 6)
            try spool.write([1, 2, 3, 4], at: 0)
            try spool.sync()
            #expect(try AtomicFile.read(path) == [1, 2, 3, 4, 5, 6])
            try spool.discard()
            #expect(try AtomicFile.read(path) == nil)
        }
    }

    @Test func piecesAreReadWithOneBufferOfTheGivenSize() throws {
        try withDirectory { directory in
            let bytes = (0..<10_001).map { UInt8(truncatingIfNeeded: $0) }
            try AtomicFile.write(bytes, to: directory + "/file")
            var read: [UInt8] = []
            var largest = 0
            let total = try SpoolFile.readPieces(of: directory + "/file", pieceBytes: 4096) { piece in
                largest = max(largest, piece.count)
                read.append(contentsOf: piece)
            }
            #expect(total == 10_001)
            #expect(read == bytes)
            #expect(largest == 4096)
        }
    }
}

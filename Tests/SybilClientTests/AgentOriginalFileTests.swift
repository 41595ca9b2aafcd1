import Foundation
import Testing

@testable import SybilClient

/// An exported original never replaces a file: `write` refuses a taken path, `save` goes to
/// `name (2).ext`, `name (3).ext`…, and a file name cannot leave the folder.
@Suite("Agent original files")
struct AgentOriginalFileTests {
    private func folder() throws -> String {
        let path = NSTemporaryDirectory() + "sybil-originals-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writeRefusesATakenPathAndLeavesItAlone() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a.txt"
        try AgentOriginalFile.write(Array("first".utf8), to: path)
        #expect(throws: AgentOriginalFile.Failure.exists(path)) {
            try AgentOriginalFile.write(Array("second".utf8), to: path)
        }
        #expect(FileManager.default.contents(atPath: path) == Data("first".utf8))
        #expect(throws: AgentOriginalFile.Failure.self) {
            try AgentOriginalFile.write([1], to: directory + "/no/such/folder/x")
        }
    }

    @Test func saveNumbersTakenNamesAndKeepsTheFileInItsFolder() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try AgentOriginalFile.save([1], named: "report.pdf", in: directory) == directory + "/report.pdf")
        #expect(try AgentOriginalFile.save([2], named: "report.pdf", in: directory) == directory + "/report (2).pdf")
        #expect(try AgentOriginalFile.save([3], named: "report.pdf", in: directory) == directory + "/report (3).pdf")
        #expect(try AgentOriginalFile.save([4], named: ".bashrc", in: directory) == directory + "/.bashrc")
        #expect(try AgentOriginalFile.save([5], named: ".bashrc", in: directory) == directory + "/.bashrc (2)")
        #expect(try AgentOriginalFile.save([6], named: "../../etc/passwd", in: directory) == directory + "/passwd")
        #expect(FileManager.default.contents(atPath: directory + "/report (2).pdf") == Data([2]))
        #expect(FileManager.default.contents(atPath: directory + "/report.pdf") == Data([1]))
    }
}

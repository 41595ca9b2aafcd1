import Foundation
import Testing

@testable import SybilStore

@Suite("Boot identity")
struct BootIdentityTests {
    @Test func aBootIdFileIsReadWithoutItsNewline() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("boot-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("9b1c36b4-5e7a-4c1f-8d43-2f0a6c1e77d2\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(BootIdentity.identity(atPath: path) == "9b1c36b4-5e7a-4c1f-8d43-2f0a6c1e77d2")
    }

    @Test func aMissingFileOrOneThatIsNotAShortPrintableNameIsNoIdentity() throws {
        #expect(BootIdentity.identity(atPath: "/nonexistent/boot_id") == nil)
        #expect(BootIdentity.validated(Array(" \n".utf8)) == nil, "only white space")
        #expect(BootIdentity.validated(Array("a b".utf8)) == nil, "white space inside")
        #expect(BootIdentity.validated([0x61, 0x00, 0x62]) == nil, "a control byte")
        #expect(BootIdentity.validated(Array("é".utf8)) == nil, "not ASCII")
        #expect(BootIdentity.validated(Array(String(repeating: "a", count: 64).utf8)) != nil, "64 bytes is the most")
        #expect(BootIdentity.validated(Array(String(repeating: "a", count: 65).utf8)) == nil, "65 is too long")
        // A file longer than the bound is not read as an identity.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("boot-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: UInt8(ascii: "a"), count: BootIdentity.maxBytes + 1).write(to: URL(fileURLWithPath: path))
        #expect(BootIdentity.identity(atPath: path) == nil)
    }

    #if os(Linux)
        @Test func theRunningKernelNamesItsBootAndKeepsTheName() throws {
            let current = try #require(BootIdentity.current())
            let file = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            #expect(current == file.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(BootIdentity.current() == current)
        }
    #endif
}

import Foundation
import Testing

/// The terminal front end draws what the view models publish (SybilClient's view state) and
/// never reads storage rows: no file of SybilTUI imports SybilStore.
@Suite("SybilTUI module imports")
struct ModuleImportsTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SybilTUI")

    /// The Swift files under `directory`, or `nil` when the folder is absent (a copy of the
    /// tests without the sources).
    static func swiftFiles(under directory: URL) -> [URL]? {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return nil
        }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test func noSourceFileImportsTheStore() throws {
        guard FileManager.default.fileExists(atPath: Self.sources.path),
            let files = Self.swiftFiles(under: Self.sources)
        else { return }
        #expect(!files.isEmpty, "the sources are found")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let imports = text.split(separator: "\n").filter { line in
                let words = line.split(whereSeparator: \.isWhitespace)
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return false }
                // Only a declaration: attributes and access levels may come before `import`.
                let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
                let declaration = words[..<index].allSatisfy { $0.hasPrefix("@") || modifiers.contains($0) }
                return declaration && words[index + 1] == "SybilStore"
            }
            #expect(imports.isEmpty, "\(file.lastPathComponent) imports SybilStore")
        }
    }
}

import Foundation

/// The inputs kept in the repository for each target: `fuzz/corpus/<target>/` (seeds, and what
/// fuzzing added) and `fuzz/regressions/<target>/` (inputs that once crashed or broke an
/// invariant). Replaying them is the regression suite that runs without the fuzzer.
public struct FuzzCorpus: Sendable {
    /// The `fuzz` folder.
    public var root: URL

    /// The corpus under `root` (a repository's `fuzz` folder).
    public init(root: URL) {
        self.root = root
    }

    /// The folders holding `target`'s inputs: its corpus and its regressions.
    public func folders(for target: FuzzTarget) -> [URL] {
        ["corpus", "regressions"].map {
            root.appendingPathComponent($0, isDirectory: true).appendingPathComponent(
                target.rawValue, isDirectory: true)
        }
    }

    /// The input files for `target`, sorted by path; a missing folder has none.
    public func files(for target: FuzzTarget) throws -> [URL] {
        try folders(for: target).flatMap { try Self.files(in: $0) }
    }

    /// The regular files in `folder` (not descending), sorted by name; none when it is missing.
    public static func files(in folder: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return [] }
        return try FileManager.default.contentsOfDirectory(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
        )
        .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Runs every file in `files` through `target`; returns the failures, each with its file.
    public static func replay(_ files: [URL], through target: FuzzTarget) throws -> [(file: URL, failure: FuzzFailure)]
    {
        var failures: [(file: URL, failure: FuzzFailure)] = []
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            do {
                try target.run(bytes)
            } catch {
                failures.append((file, error))
            }
        }
        return failures
    }
}

#if !LIBFUZZER
    import Foundation
    import SybilFuzzTargets

    /// Replays inputs through the fuzz targets without the fuzzer runtime.
    enum Replay {
        static let help = """
            Usage: sybil-fuzz [--target NAME] [--corpus DIR] [PATH ...]

            Replays inputs through the fuzz targets and reports each target's inputs and failures.
            Without PATH, replays DIR/corpus/<target>/ and DIR/regressions/<target>/ for every target
            (DIR defaults to ./fuzz). A PATH is a file or a folder of files; its target is --target,
            or else the name of the folder that holds it (fuzz/corpus/json/x → json).

            Targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")).

            Options:
              --target NAME   Replay only this target.
              --corpus DIR    The fuzz folder (default ./fuzz).
              -h, --help      Show this help.

            Exit status: 0 when every input passed, 1 when one failed, 2 on a usage error.
            scripts/fuzz builds this program with libFuzzer instead, to search for new inputs.

            """

        static func run(_ arguments: [String]) -> Int32 {
            var target: FuzzTarget?
            var root = URL(fileURLWithPath: "fuzz", isDirectory: true)
            var paths: [String] = []
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                switch argument {
                case "-h", "--help":
                    print(help, terminator: "")
                    return 0
                case "--target":
                    guard let name = remaining.popFirst(), let named = FuzzTarget(rawValue: name) else {
                        return usage(
                            "--target needs one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    target = named
                case "--corpus":
                    guard let path = remaining.popFirst() else { return usage("--corpus needs a folder") }
                    root = URL(fileURLWithPath: path, isDirectory: true)
                default:
                    if argument.hasPrefix("-") { return usage("unknown option \(argument)") }
                    paths.append(argument)
                }
            }
            do {
                let batches = try batches(paths: paths, target: target, root: root)
                var failed = false
                for (target, files) in batches {
                    let failures = try FuzzCorpus.replay(files, through: target)
                    print("\(target.rawValue): \(files.count) inputs, \(failures.count) failures")
                    for (file, failure) in failures {
                        print("  \(file.path): \(failure.message)")
                    }
                    failed = failed || !failures.isEmpty
                }
                return failed ? 1 : 0
            } catch {
                FileHandle.standardError.write(Data("sybil-fuzz: \(error.localizedDescription)\n".utf8))
                return 2
            }
        }

        /// The files to replay, grouped by target in target order.
        private static func batches(paths: [String], target: FuzzTarget?, root: URL) throws -> [(FuzzTarget, [URL])] {
            let targets = target.map { [$0] } ?? FuzzTarget.allCases
            guard !paths.isEmpty else {
                let corpus = FuzzCorpus(root: root)
                return try targets.map { ($0, try corpus.files(for: $0)) }
            }
            var grouped: [FuzzTarget: [URL]] = [:]
            for path in paths {
                let url = URL(fileURLWithPath: path)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                    throw ReplayError("no such file or folder: \(path)")
                }
                let files = isDirectory.boolValue ? try FuzzCorpus.files(in: url) : [url]
                let folder = isDirectory.boolValue ? url : url.deletingLastPathComponent()
                guard let owner = target ?? FuzzTarget(rawValue: folder.lastPathComponent) else {
                    throw ReplayError("\(path) is not in a folder named after a target; pass --target")
                }
                grouped[owner, default: []] += files
            }
            return targets.compactMap { target in grouped[target].map { (target, $0) } }
        }

        private static func usage(_ message: String) -> Int32 {
            FileHandle.standardError.write(Data("sybil-fuzz: \(message). See sybil-fuzz --help.\n".utf8))
            return 2
        }
    }
#endif

import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Upload streaming from disk

/// A desktop in the same process that takes chunks and only counts them.
final class CountingUploadDesktop: WorkspaceUploadRPC {
    let chunkSize = 1 << 20
    private let counted = Locked<(base64: Int64, decoded: Int64)>((0, 0))
    var base64Bytes: Int64 { counted.withLock { $0.base64 } }

    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin {
        AttachmentUploadBegin(uploadId: "bench", chunkSize: chunkSize)
    }

    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws {
        // The bytes the chunk decodes to, from its length and padding (no decoding).
        let padding = base64.utf8.suffix(2).count(where: { $0 == UInt8(ascii: "=") })
        let decoded = Int64(base64.utf8.count / 4 * 3 - padding)
        counted.withLock {
            $0.base64 += Int64(base64.utf8.count)
            $0.decoded += decoded
        }
    }

    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult {
        // The uploader checks the size the desktop reports against the file's.
        AttachmentUploadResult(
            uploadId: uploadId, size: counted.withLock { $0.decoded }, sha256: String(repeating: "0", count: 64))
    }

    func cancelUpload(callKey: String, uploadId: String) async throws {}
}

/// Peak resident memory (VmHWM) in bytes; `resetPeakMemory()` starts a new peak.
func peakResidentBytes() -> Int64 {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int64(line.split(separator: " ").dropFirst().first ?? "")
    else { return -1 }
    return kib * 1024
}

func resetPeakMemory() {
    // Writing 5 to clear_refs resets VmHWM to the current resident size (Linux ≥ 4.0).
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// Writes `size` bytes of varied content to `path`, 1 MiB at a time.
func writeTestFile(_ path: String, size: Int) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var block = [UInt8](repeating: 0, count: 1 << 20)
    let random = SeededRandomSource(seed: 11)
    for index in block.indices { block[index] = UInt8(truncatingIfNeeded: random.nextUInt64()) }
    for _ in 0..<(size >> 20) { try handle.write(contentsOf: block) }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

func benchmarkUpload() async {
    let size = scaled(1 << 10) << 20  // whole MiB: the uploader sends 1 MiB chunks
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-upload").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/one-gib.bin"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do { try writeTestFile(path, size: size) } catch {
        caseFailed("upload: cannot write the test file: \(error)")
        return
    }
    let chat = WorkspaceChatKey(desktopId: "bench", projectId: "bench", sessionId: "bench")
    let file = AttachmentUploader.File(path: path, fileName: "one-gib.bin", mimeType: "application/octet-stream")
    var uploadSeconds = Double.infinity
    var peak: Int64 = 0
    for _ in 0..<max(1, min(repetitions, 3)) {
        let desktop = CountingUploadDesktop()
        let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
        resetPeakMemory()
        let start = clock.now
        do { _ = try await uploader.upload(file, to: chat) } catch {
            caseFailed("upload: failed: \(error)")
            return
        }
        uploadSeconds = min(uploadSeconds, seconds(start.duration(to: clock.now)))
        peak = max(peak, peakResidentBytes())
        // Each 1 MiB chunk is encoded on its own (with its own padding).
        precondition(desktop.base64Bytes == Int64(size >> 20) * Int64(((1 << 20) + 2) / 3 * 4), "every byte was sent")
    }
    var base64Seconds = Double.infinity
    for _ in 0..<max(1, min(repetitions, 3)) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/base64")
        process.arguments = [path]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let start = clock.now
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            caseFailed("upload: cannot run base64: \(error)")
            return
        }
        base64Seconds = min(base64Seconds, seconds(start.duration(to: clock.now)))
    }
    let mib = Double(size) / 1_048_576
    print(
        "upload 1 GiB through an in-process desktop: \(format(mib / uploadSeconds, 0)) MiB/s, "
            + "coreutils base64 \(format(mib / base64Seconds, 0)) MiB/s, "
            + "ratio \(format(base64Seconds / uploadSeconds * 100, 1)) % (goal >= 50 %); "
            + "peak resident memory \(format(Double(peak) / 1_048_576, 1)) MiB (goal <= 64)")
}

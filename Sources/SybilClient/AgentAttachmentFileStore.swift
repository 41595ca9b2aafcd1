import Foundation
import SybilCore
import SybilStore

/// The Agent room draft in files (SPEC §6.1): under `directory/agent-attachments/<scope>/`, where
/// the scope is derived from the API base URL, a `manifest.json` replaced atomically
/// (``AtomicFile``) and one file per staged upload in `staged/`. Files are 0600 in 0700
/// directories. All file work runs on a serial queue of its own, in the order it was asked for.
public final class AgentAttachmentFileStore: AgentAttachmentStorage {
    /// The most bytes one staged file may hold.
    public static let maxStagedFileBytes = 8 << 20
    /// The most bytes one draft's staged files may hold together.
    public static let maxStagedDraftBytes = 32 << 20

    /// The folder of this base URL's draft.
    public let root: String
    private let io = AgentAttachmentIOQueue(label: "sybil.agent-attachments")

    /// A store for the draft of `baseURL` under `directory/folder` (created when first
    /// written); an ordinary chat's staged files use the same store under `chat-attachments`.
    public init(directory: String, baseURL: URL, folder: String = "agent-attachments") {
        root = directory + "/" + folder + "/" + Self.scope(for: baseURL)
    }

    /// The scope of a base URL: 16 hex digits of FNV-1a over the outbox's normalised form
    /// (``AgentOutboxScope``), so `…/api` and `…/api/` share a draft and `…/api` and the bare
    /// host do not, exactly as they share or keep apart an outbox.
    public static func scope(for baseURL: URL) -> String {
        let normalised = (try? AgentOutboxScope(baseURL: baseURL).baseURL) ?? baseURL.absoluteString
        return Hex.padded(FNV1a64.hash(utf8: normalised))
    }

    private var manifestPath: String { root + "/manifest.json" }
    private var asidePath: String { root + "/manifest.unreadable.json" }
    private var stagedDirectory: String { root + "/staged" }

    private func stagedPath(_ uploadId: String) throws -> String {
        guard AgentAttachmentManifest.isValidUploadId(uploadId) else {
            throw StorageError(operation: "stage", path: stagedDirectory, reason: "invalid upload id \(uploadId)")
        }
        return stagedDirectory + "/" + uploadId
    }

    public func readManifest() async throws -> [UInt8]? {
        let path = manifestPath
        return try await io.run { try AtomicFile.read(path) }
    }

    public func writeManifest(_ bytes: [UInt8]) async throws {
        let (root, path) = (root, manifestPath)
        try await io.run {
            try AtomicFile.createDirectory(root)
            try AtomicFile.write(bytes, to: path)
        }
    }

    public func keepAside(_ bytes: [UInt8]) async throws {
        let (root, path) = (root, asidePath)
        try await io.run {
            try AtomicFile.createDirectory(root)
            try AtomicFile.write(bytes, to: path)
        }
    }

    public func stage(_ bytes: [UInt8], uploadId: String) async throws {
        let path = try stagedPath(uploadId)
        let directory = stagedDirectory
        guard bytes.count <= Self.maxStagedFileBytes else {
            throw StorageError(
                operation: "stage", path: path,
                reason: "\(bytes.count) bytes is more than the \(Self.maxStagedFileBytes) a staged file may hold")
        }
        try await io.run {
            try AtomicFile.createDirectory(directory)
            let others = try Self.stagedSizes(in: directory).filter { $0.key != uploadId }.values.reduce(0, +)
            guard others + bytes.count <= Self.maxStagedDraftBytes else {
                throw StorageError(
                    operation: "stage", path: path,
                    reason:
                        "the draft's staged files would take \(others + bytes.count) bytes, more than \(Self.maxStagedDraftBytes)"
                )
            }
            try AtomicFile.write(bytes, to: path)
        }
    }

    public func readStaged(uploadId: String) async throws -> [UInt8]? {
        let path = try stagedPath(uploadId)
        return try await io.run { try AtomicFile.read(path) }
    }

    public func removeStaged(uploadId: String) async throws {
        let path = try stagedPath(uploadId)
        try await io.run {
            guard FileManager.default.fileExists(atPath: path) else { return }
            try AtomicFile.remove(path)
        }
    }

    public func stagedUploadIds() async throws -> [String] {
        let directory = stagedDirectory
        return try await io.run { try Self.stagedSizes(in: directory).keys.sorted() }
    }

    public func removeAll() async throws {
        let (manifest, directory) = (manifestPath, stagedDirectory)
        try await io.run {
            if FileManager.default.fileExists(atPath: manifest) { try AtomicFile.remove(manifest) }
            for uploadId in try Self.stagedSizes(in: directory).keys {
                try AtomicFile.remove(directory + "/" + uploadId)
            }
        }
    }

    /// Staged files by upload id with their sizes (temporary files a crash left are ignored).
    private static func stagedSizes(in directory: String) throws -> [String: Int] {
        guard FileManager.default.fileExists(atPath: directory) else { return [:] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw StorageError(operation: "list", path: directory, reason: String(describing: error))
        }
        var sizes: [String: Int] = [:]
        for name in names where AgentAttachmentManifest.isValidUploadId(name) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            sizes[name] = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        }
        return sizes
    }
}

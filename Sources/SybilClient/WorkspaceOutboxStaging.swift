import Foundation
import SybilCore
import SybilHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The outbox's own copies of attachments that wait with their message (SPEC §2 "nothing
/// lost"): when a message is queued while its attachments cannot be uploaded, each file is
/// copied here (streamed, at most ``AttachmentUploader/maximumFileBytes``, flushed to disk)
/// with its size and SHA-256, one folder per operation. The sender uploads these copies before
/// the message and removes the folder once the desktop acknowledged it, so a later change or
/// deletion of the user's file cannot change what is sent. File work runs on this actor, off
/// the main actor.
public actor WorkspaceOutboxStaging {
    /// Bytes read and written at a time.
    static let copyChunkBytes = 1 << 20

    /// Where the copies live: one folder per operation id.
    public nonisolated let directory: String

    /// Operations this process staged copies for: their folders are never swept as orphans
    /// (a message may be between staging and being saved in the outbox).
    private var stagedThisProcess: Set<String> = []

    /// Staging in `directory` (created when the first file is staged).
    public init(directory: String) {
        self.directory = directory
    }

    /// The staging directory beside the outbox file of a ``FileKeyValueStore`` in
    /// `storeDirectory`: `<storeDirectory>/workspace-chat-local-outbox-v2.attachments`.
    public static func directory(besideOutboxIn storeDirectory: String) -> String {
        storeDirectory + "/" + WorkspaceOutbox.storageKey + ".attachments"
    }

    /// The folder of `operationId`'s copies (ids that are not plain file names are hashed).
    public nonisolated func folder(of operationId: String) -> String {
        let plain = operationId.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F
        }
        if plain, !operationId.isEmpty, operationId.utf8.count <= 128 { return directory + "/" + operationId }
        var hasher = FNV1a64()
        hasher.update(Array(operationId.utf8))
        return directory + "/op-" + hasher.hexDigest
    }

    /// Copies `file` as the `index`th attachment of `operationId` and flushes it to disk.
    public func stage(
        _ file: AttachmentUploader.File, operationId: String, index: Int
    ) throws(WorkspaceStagingError) -> WorkspaceStagedAttachment {
        let folder = folder(of: operationId)
        let target = folder + "/\(index)"
        stagedThisProcess.insert(operationId)
        guard let source = FileHandle(forReadingAtPath: file.path) else {
            throw .unreadable(path: file.path, reason: "it does not exist or cannot be read")
        }
        defer { try? source.close() }
        let limit = AttachmentUploader.maximumFileBytes
        do {
            let size = Int64(try source.seekToEnd())
            guard size <= limit else {
                throw WorkspaceStagingError.tooLarge(fileName: file.fileName, size: size, limit: limit)
            }
            try source.seek(toOffset: 0)
        } catch let error as WorkspaceStagingError {
            throw error
        } catch {
            throw .unreadable(path: file.path, reason: String(describing: error))
        }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotStage(path: folder, reason: String(describing: error))
        }
        guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
            let copy = FileHandle(forWritingAtPath: target)
        else {
            throw .cannotStage(path: target, reason: "it cannot be created")
        }
        defer { try? copy.close() }
        let digest = SHA256Stream()
        var copied: Int64 = 0
        while true {
            let chunk: Data
            do {
                guard let data = try source.read(upToCount: Self.copyChunkBytes), !data.isEmpty else { break }
                chunk = data
            } catch {
                throw .unreadable(path: file.path, reason: String(describing: error))
            }
            copied += Int64(chunk.count)
            // The file may grow while it is copied: the limit holds for what is read.
            guard copied <= limit else { throw .tooLarge(fileName: file.fileName, size: copied, limit: limit) }
            chunk.withUnsafeBytes { digest.update($0) }
            do {
                try copy.write(contentsOf: chunk)
            } catch {
                throw .cannotStage(path: target, reason: String(describing: error))
            }
        }
        do {
            try copy.synchronize()
        } catch {
            throw .cannotStage(path: target, reason: String(describing: error))
        }
        Self.syncDirectory(folder)
        Self.syncDirectory(directory)
        return WorkspaceStagedAttachment(
            fileName: file.fileName, mimeType: file.mimeType, size: copied, sha256: digest.finalHex(),
            stagedPath: target)
    }

    /// Checks that `staged` is where this staging keeps `operationId`'s copies: exactly
    /// `folder(of: operationId) + "/<n>"` (`n` a decimal index below
    /// ``WorkspaceOutboxEntry/maximumStagedAttachments``), the folder a real directory and the
    /// copy not a symbolic link, so that a tampered outbox cannot make the sender upload another
    /// file. A copy that does not exist passes (``verify(_:)`` reports it missing).
    public func confine(_ staged: WorkspaceStagedAttachment, operationId: String) throws(WorkspaceStagingError) {
        let folder = folder(of: operationId)
        let outside = WorkspaceStagingError.outsideStaging(fileName: staged.fileName, path: staged.stagedPath)
        guard staged.stagedPath.hasPrefix(folder + "/") else { throw outside }
        let index = staged.stagedPath.utf8.dropFirst(folder.utf8.count + 1)
        guard (1...2).contains(index.count), index.allSatisfy({ (0x30...0x39).contains($0) }),
            index.count == 1 || index.first != 0x30,
            let number = Int(String(decoding: index, as: UTF8.self)),
            number < WorkspaceOutboxEntry.maximumStagedAttachments
        else { throw outside }
        var info = stat()
        if lstat(folder, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw outside }
        } else if errno != ENOENT {
            throw outside
        }
        if lstat(staged.stagedPath, &info) == 0 {
            guard info.st_mode & S_IFMT != S_IFLNK else { throw outside }
        }
        // The staging folder itself may sit behind a link (a home on another volume): what
        // counts is that the copy's folder resolves to the entry's folder inside it.
        if let root = Self.canonical(directory), let resolved = Self.canonical(folder) {
            guard resolved == root + "/" + String(folder.dropFirst(directory.count + 1)) else {
                throw outside
            }
        }
    }

    private static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Checks that a staged copy is still there, whole and unchanged (size and SHA-256). Only a
    /// missing copy (`ENOENT`) or one whose size or SHA-256 differs is ``WorkspaceStagingError/damaged(fileName:reason:)``
    /// (it can never be sent); any other failure to open or read it (too many open files,
    /// permissions, an I/O error) is ``WorkspaceStagingError/unavailable(fileName:reason:)``:
    /// the message waits and is tried again later.
    public func verify(_ staged: WorkspaceStagedAttachment) throws(WorkspaceStagingError) {
        let descriptor = open(staged.stagedPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw .damaged(fileName: staged.fileName, reason: "its staged copy \(staged.stagedPath) is missing")
            }
            throw .unavailable(
                fileName: staged.fileName,
                reason: "its staged copy \(staged.stagedPath) cannot be opened (\(Self.describe(code)))")
        }
        defer { close(descriptor) }
        let digest = SHA256Stream()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: Self.copyChunkBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .unavailable(
                    fileName: staged.fileName,
                    reason: "its staged copy \(staged.stagedPath) cannot be read (\(Self.describe(code)))")
            }
            if count == 0 { break }
            size += Int64(count)
            guard size <= staged.size else { break }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        guard size == staged.size, digest.finalHex() == staged.sha256 else {
            throw .damaged(
                fileName: staged.fileName, reason: "its staged copy \(staged.stagedPath) changed since it was queued")
        }
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text) + ", errno \(code)"
    }

    /// Removes the copies of `operationId` (harmless when there are none).
    public func remove(operationId: String) {
        let folder = folder(of: operationId)
        guard FileManager.default.fileExists(atPath: folder) else { return }
        try? FileManager.default.removeItem(atPath: folder)
        Self.syncDirectory(directory)
    }

    /// Removes the folders of operations that are not in `keep` and were not staged by this
    /// process: copies left by a crash between staging and saving the message, or between the
    /// desktop's acceptance and their removal. Only entries directly in the staging directory
    /// whose names are operation folders (see ``folder(of:)``) and that are real directories
    /// are removed; symbolic links are never followed nor removed. Returns the names removed.
    @discardableResult
    public func removeOrphans(keeping keep: Set<String>) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let owned = Set((keep.union(stagedThisProcess)).map { String(folder(of: $0).dropFirst(directory.count + 1)) })
        var removed: [String] = []
        for name in names.sorted() where !owned.contains(name) && Self.isOperationFolderName(name) {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            guard (try? FileManager.default.removeItem(atPath: path)) != nil else { continue }
            removed.append(name)
        }
        if !removed.isEmpty { Self.syncDirectory(directory) }
        return removed
    }

    /// Whether `name` is one ``folder(of:)`` makes: a plain operation id, or `op-` and 16 hex
    /// digits for a hashed one.
    static func isOperationFolderName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F
        }
    }

    /// Whether `operationId` has staged copies on disk.
    public func hasCopies(of operationId: String) -> Bool {
        FileManager.default.fileExists(atPath: folder(of: operationId))
    }

    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

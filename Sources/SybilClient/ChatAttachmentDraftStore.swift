import SybilCore
import SybilWire

/// The files staged for an ordinary chat's next message, kept between launches (seed 003: the
/// draft manifest and the staged bytes survive relaunch) in the Agent room draft's own storage
/// (``AgentAttachmentStorage``, ``AgentAttachmentFileStore`` under a folder of its own).
///
/// A save stages each file's bytes under an id made from its size and content, then replaces
/// the manifest (the files in order: id, name, type, kind and size), then removes the staged
/// bytes no file uses any more. A crash before the manifest is replaced leaves the earlier
/// list whole; bytes a crash left behind are removed by the next ``restore()``. Saves run one
/// after another in the order asked; each writes the newest list asked for by then.
public final class ChatAttachmentDraftStore: Sendable {
    /// The manifest's version.
    public static let version: Int64 = 1

    /// What ``restore()`` found.
    public struct Restored: Sendable, Hashable {
        /// The staged files, in order.
        public var attachments: [ChatAttachment]
        /// Sentences for a person: files whose saved bytes were gone, a manifest kept aside.
        public var notes: [String]

        /// What a restore found.
        public init(attachments: [ChatAttachment], notes: [String]) {
            self.attachments = attachments
            self.notes = notes
        }
    }

    private struct State {
        /// The newest list asked for, not yet written.
        var wanted: [ChatAttachment]?
        /// The ids whose bytes are staged.
        var staged: Set<String> = []
    }

    private let storage: any AgentAttachmentStorage
    private let state = Locked(State())
    private let chain = SerialAsyncChain()

    /// A store over `storage`; call ``restore()`` once at launch before saving.
    public init(storage: any AgentAttachmentStorage) {
        self.storage = storage
    }

    /// The staged id of `attachment`: its size and a hash of its bytes, so equal files share
    /// one staged copy and an unchanged file is never written again.
    static func stagedId(_ attachment: ChatAttachment) -> String {
        "c\(attachment.size)-" + Hex.padded(FNV1a64.hash(attachment.bytes))
    }

    /// Saves `attachments` (in order) as the staged files; returns why not when it failed (the
    /// files stay staged in the app, and the next save tries again).
    @discardableResult
    public func save(_ attachments: [ChatAttachment]) async -> String? {
        state.withLock { $0.wanted = attachments }
        do {
            return try await chain.run { [self] in await writeWanted() }
        } catch {
            return "The staged files could not be saved: \(error)"
        }
    }

    /// Writes the newest list asked for, if one is waiting.
    private func writeWanted() async -> String? {
        guard let wanted = state.withLock({ $0.wanted }) else { return nil }
        let staged = state.withLock { $0.staged }
        let ids = wanted.map(Self.stagedId)
        do {
            for (id, attachment) in zip(ids, wanted) where !staged.contains(id) {
                try await storage.stage(attachment.bytes, uploadId: id)
                state.withLock { _ = $0.staged.insert(id) }
            }
            try await storage.writeManifest(Self.manifest(wanted, ids: ids))
            state.withLock { state in
                if state.wanted == wanted { state.wanted = nil }
            }
            for id in staged.subtracting(ids) {
                try await storage.removeStaged(uploadId: id)
                state.withLock { _ = $0.staged.remove(id) }
            }
        } catch {
            return "The staged files could not be saved: \(error)"
        }
        return nil
    }

    /// Reads the saved files (once, at launch). A file whose bytes are gone or changed is left
    /// out with a note; an unreadable manifest is kept aside and the list starts empty; bytes
    /// no file names are removed.
    public func restore() async -> Restored {
        var notes: [String] = []
        let stagedIds = Set((try? await storage.stagedUploadIds()) ?? [])
        let bytes: [UInt8]?
        do {
            bytes = try await storage.readManifest()
        } catch {
            return Restored(attachments: [], notes: ["The staged files could not be read: \(error)"])
        }
        var entries: [Entry] = []
        var rewrite = false
        if let bytes {
            do {
                entries = try Self.decode(bytes)
            } catch {
                try? await storage.keepAside(bytes)
                notes.append("The staged files' list could not be read (\(error)); it was kept aside.")
                rewrite = true
            }
        }
        var attachments: [ChatAttachment] = []
        var kept: Set<String> = []
        for entry in entries {
            let read = stagedIds.contains(entry.id) ? try? await storage.readStaged(uploadId: entry.id) : nil
            guard let read, read.count == entry.size else {
                notes.append(
                    "\(TerminalText.oneLine(entry.name)) was staged but its saved copy is gone; attach it again.")
                continue
            }
            let attachment = ChatAttachment(name: entry.name, mimeType: entry.mimeType, kind: entry.kind, bytes: read)
            attachments.append(attachment)
            kept.insert(entry.id)
        }
        for id in stagedIds.subtracting(kept) { try? await storage.removeStaged(uploadId: id) }
        state.withLock { $0.staged = kept }
        if rewrite || entries.count != attachments.count { await save(attachments) }
        return Restored(attachments: attachments, notes: notes)
    }

    // MARK: - The manifest

    /// One file of the manifest.
    struct Entry: Hashable {
        var id: String
        var name: String
        var mimeType: String
        var kind: ChatAttachment.Kind
        var size: Int
    }

    static func manifest(_ attachments: [ChatAttachment], ids: [String]) -> [UInt8] {
        let files = zip(ids, attachments).map { id, attachment -> JSONValue in
            [
                "id": .string(id), "name": .string(attachment.name), "type": .string(attachment.mimeType),
                "kind": .string(attachment.kind.rawValue), "size": .number(JSONNumber(Int64(attachment.size))),
            ]
        }
        return JSONWriter().bytes(from: ["version": .number(JSONNumber(version)), "files": .array(files)])
    }

    /// Reads a manifest strictly: version 1, at most ``ChatAttachment/maximumCount`` files with
    /// valid ids, names of 1…255 bytes, a known kind and sizes within the message's ceiling.
    static func decode(_ bytes: [UInt8]) throws(JSONError) -> [Entry] {
        let reader = try JSONObjectReader(try JSONReader().parse(bytes), at: .root)
        try reader.requireExactKeys(["version", "files"])
        _ = try reader.integer("version", in: version...version)
        let files = try reader.array("files")
        let filesPath = JSONPath.root.appending(key: "files")
        guard files.count <= ChatAttachment.maximumCount else {
            throw .contract(filesPath, "at most \(ChatAttachment.maximumCount) files")
        }
        var entries: [Entry] = []
        for (index, file) in files.enumerated() {
            let path = filesPath.appending(index: index)
            let item = try JSONObjectReader(file, at: path)
            try item.requireExactKeys(["id", "name", "type", "kind", "size"])
            let id = try item.string("id")
            guard AgentAttachmentManifest.isValidUploadId(id) else {
                throw .contract(path.appending(key: "id"), "must be 1…64 letters, digits or '-'")
            }
            let name = try item.nonBlankString("name")
            guard name.utf8.count <= ChatAttachment.maximumNameBytes else {
                throw .contract(path.appending(key: "name"), "at most \(ChatAttachment.maximumNameBytes) bytes")
            }
            guard let kind = ChatAttachment.Kind(rawValue: try item.string("kind")) else {
                throw .contract(path.appending(key: "kind"), "must be text or image")
            }
            let size = try item.integer("size", in: 0...Int64(ChatAttachment.maximumTotalBytes))
            entries.append(
                Entry(id: id, name: name, mimeType: try item.nonBlankString("type"), kind: kind, size: Int(size)))
        }
        return entries
    }
}

import Foundation
import SybilClient
import SybilCore
import SybilWire
import Testing

/// An ordinary chat's staged files between launches (seed 003: the draft manifest and staged
/// bytes survive relaunch), kept in the Agent room draft's file store under a folder of their
/// own. A "relaunch" is a new store over the same files; a "crash" is work a store left half
/// done (bytes staged, the manifest not yet replaced) or a manifest damaged on disk.
@Suite("Staged chat attachments across relaunch and crashes", .timeLimit(.minutes(2)))
struct ChatAttachmentDraftStoreTests {
    static func files(_ directory: String) -> AgentAttachmentFileStore {
        AgentAttachmentFileStore(directory: directory, baseURL: AttachmentFixtures.baseURL, folder: "chat-attachments")
    }

    static let notes = ChatAttachment(
        name: "notes.txt", mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("The plan\n".utf8))
    static let photo = ChatAttachment(
        name: "cat.png", mimeType: "image/png", kind: .image,
        bytes: [0x89, 0x50, 0x4E, 0x47] + Array(repeating: 7, count: 4_000))
    static let log = ChatAttachment(
        name: "build.log", mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("ok\n".utf8))

    @Test func aRelaunchFindsTheStagedFilesInOrderWithTheirBytes() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = ChatAttachmentDraftStore(storage: Self.files(directory))
            #expect(await first.restore() == .init(attachments: [], notes: []))
            #expect(await first.save([Self.notes, Self.photo, Self.log]) == nil)
            #expect(await first.save([Self.notes, Self.log]) == nil, "the photo detached")

            let relaunched = ChatAttachmentDraftStore(storage: Self.files(directory))
            let restored = await relaunched.restore()
            #expect(restored.attachments == [Self.notes, Self.log])
            #expect(restored.notes.isEmpty)
            let stagedAfterRelaunch = try await Self.files(directory).stagedUploadIds()
            #expect(stagedAfterRelaunch.count == 2, "the detached photo's bytes are gone from the disk")
            #expect(await relaunched.save([]) == nil, "a sent message unstages them")
            #expect(await ChatAttachmentDraftStore(storage: Self.files(directory)).restore().attachments.isEmpty)
            let stagedAfterSending = try await Self.files(directory).stagedUploadIds()
            #expect(stagedAfterSending.isEmpty)
        }
    }

    @Test func aCrashAfterStagingBeforeTheManifestKeepsTheEarlierListAndRemovesTheStrayBytes() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = ChatAttachmentDraftStore(storage: Self.files(directory))
            _ = await first.restore()
            #expect(await first.save([Self.notes]) == nil)
            // The process died after staging the next file's bytes, before the manifest named it.
            try await Self.files(directory).stage(Self.photo.bytes, uploadId: "c4004-0123456789abcdef")
            let stagedAtCrash = try await Self.files(directory).stagedUploadIds()
            #expect(stagedAtCrash.count == 2)

            let relaunched = ChatAttachmentDraftStore(storage: Self.files(directory))
            let restored = await relaunched.restore()
            #expect(restored.attachments == [Self.notes], "the list the last whole save wrote")
            #expect(restored.notes.isEmpty)
            let stagedAfterRestore = try await Self.files(directory).stagedUploadIds()
            #expect(stagedAfterRestore.count == 1, "bytes no file names are removed")
        }
    }

    @Test func aFileWhoseSavedCopyIsGoneIsLeftOutWithANoteAndTheRestStay() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = ChatAttachmentDraftStore(storage: Self.files(directory))
            _ = await first.restore()
            #expect(await first.save([Self.notes, Self.log]) == nil)
            let staged = try await Self.files(directory).stagedUploadIds()
            let logId = try #require(staged.first { $0.hasPrefix("c3-") })
            try await Self.files(directory).removeStaged(uploadId: logId)

            let restored = await ChatAttachmentDraftStore(storage: Self.files(directory)).restore()
            #expect(restored.attachments == [Self.notes])
            #expect(restored.notes == ["build.log was staged but its saved copy is gone; attach it again."])
            let again = await ChatAttachmentDraftStore(storage: Self.files(directory)).restore()
            #expect(again == .init(attachments: [Self.notes], notes: []), "the manifest was written without it")
        }
    }

    @Test func aDamagedManifestIsKeptAsideAndTheListStartsEmpty() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let first = ChatAttachmentDraftStore(storage: Self.files(directory))
            _ = await first.restore()
            #expect(await first.save([Self.notes]) == nil)
            // Torn on disk: the manifest's first half only.
            let whole = try #require(try await Self.files(directory).readManifest())
            try await Self.files(directory).writeManifest(Array(whole.prefix(whole.count / 2)))

            let restored = await ChatAttachmentDraftStore(storage: Self.files(directory)).restore()
            #expect(restored.attachments.isEmpty)
            #expect(restored.notes.count == 1)
            #expect(restored.notes.first?.hasPrefix("The staged files' list could not be read (") == true)
            #expect(restored.notes.first?.hasSuffix("); it was kept aside.") == true)
            let aside = Self.files(directory).root + "/manifest.unreadable.json"
            #expect(
                FileManager.default.contents(atPath: aside).map { Array($0) } == Array(whole.prefix(whole.count / 2)))
            let stagedAfterRestore = try await Self.files(directory).stagedUploadIds()
            #expect(stagedAfterRestore.isEmpty, "bytes no file names are removed")
            #expect(
                await ChatAttachmentDraftStore(storage: Self.files(directory)).restore()
                    == .init(attachments: [], notes: []))
        }
    }

    @Test func aFailedSaveSaysWhyAndTheNextSaveWritesTheNewestList() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let storage = SwitchableAttachmentStorage(Self.files(directory))
            let store = ChatAttachmentDraftStore(storage: storage)
            _ = await store.restore()
            storage.setFailing(true)
            #expect(
                await store.save([Self.notes])
                    == "The staged files could not be saved: cannot stage: No space left on device")
            storage.setFailing(false)
            #expect(await store.save([Self.notes, Self.log]) == nil)
            #expect(
                await ChatAttachmentDraftStore(storage: Self.files(directory)).restore().attachments == [
                    Self.notes, Self.log,
                ])
        }
    }

    @Test func aManifestBeyondItsBoundsIsKeptAsideWithANoteNamingTheField() async throws {
        let tooMany = (0...ChatAttachment.maximumCount).map { _ in
            #"{"id":"c1-a","name":"a","type":"text/plain","kind":"text","size":1}"#
        }
        let cases: [(String, String)] = [
            (#"{"version":2,"files":[]}"#, "version"),
            (#"{"version":1,"files":[\#(tooMany.joined(separator: ","))]}"#, "files"),
            (#"{"version":1,"files":[{"id":"../x","name":"a","type":"t","kind":"text","size":1}]}"#, "id"),
            (#"{"version":1,"files":[{"id":"c1-a","name":" ","type":"t","kind":"text","size":1}]}"#, "name"),
            (#"{"version":1,"files":[{"id":"c1-a","name":"a","type":"t","kind":"video","size":1}]}"#, "kind"),
            (#"{"version":1,"files":[{"id":"c1-a","name":"a","type":"t","kind":"text","size":-1}]}"#, "size"),
        ]
        for (json, field) in cases {
            try await AttachmentFixtures.withDirectory { directory in
                try await Self.files(directory).writeManifest(Array(json.utf8))
                let restored = await ChatAttachmentDraftStore(storage: Self.files(directory)).restore()
                #expect(restored.attachments.isEmpty)
                #expect(restored.notes.first?.contains(field) == true, "\(restored.notes) names \(field)")
            }
        }
    }
}

import Observation
import SybilCore
import SybilNet
import SybilStore
import SybilTimeline

/// Quick Question (seed 003, SPEC §5.5): one prompt and its answer in a panel that opens and
/// hides. It asks OpenAI `chat-latest` unless the person saved another choice (its own
/// preference, never the regular chat's). Opening selects the whole prompt, so typing replaces
/// it; Return submits, Shift+Return inserts a new line, a held Return does not submit again
/// (``ComposerKeyDecision``). Hiding keeps the draft and the answer and lets an answer in flight
/// finish. "Open in Chat" saves the question and the answer as a regular conversation.
@MainActor
@Observable
public final class QuickQuestionModel {
    /// The provider and model asked.
    public private(set) var choice: ChatModelChoice
    /// Whether the panel is shown.
    public private(set) var isVisible = false
    /// The prompt being written (it stays after a submit, so reopening can replace it).
    public private(set) var draft = ""
    /// The selected characters of ``draft`` (an empty range is the caret).
    public private(set) var selection: Range<Int> = 0..<0
    /// The question last asked.
    public private(set) var question: String?
    /// The answer so far.
    public private(set) var answer = ""
    /// Whether the answer is still arriving.
    public private(set) var isAnswering = false
    /// How the last answer ended (`nil` before the first question, `.streaming` while it arrives).
    public private(set) var answerState: ChatTranscriptMessage.State?
    /// What went wrong last, as a sentence a person can act on.
    public private(set) var lastError: String?
    /// Whether the answer is being saved as a chat (Open in Chat shows progress meanwhile).
    public private(set) var isSavingChat = false
    /// How many Open in Chat requests joined a save already running instead of saving again.
    public private(set) var joinedChatSaves = 0
    /// The platform, which decides nothing here (Return submits everywhere in Quick Question)
    /// but is passed to the key rule for the record.
    public let platform: ComposerKeyDecision.Platform

    @ObservationIgnored private let preferences: any KeyValueStore
    @ObservationIgnored private let store: any ChatHistoryStore
    @ObservationIgnored private let makeStreaming: @MainActor (ChatModelChoice) -> any ChatStreaming
    @ObservationIgnored private let now: @Sendable () -> Int64
    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private var answerTask: Task<Void, Never>?
    @ObservationIgnored private var askedAt: Int64 = 0
    @ObservationIgnored private var answeredAt: Int64?
    @ObservationIgnored private var askedChoice = ChatModelChoice.quickQuestionDefault
    @ObservationIgnored private var openedChatId: String?
    /// Counts the questions asked, so a save finishing after a newer question is not taken for it.
    @ObservationIgnored private var questionNumber = 0
    /// The save of the current answer as a chat, while it runs (a second Open in Chat joins it).
    @ObservationIgnored private var opening: (question: Int, task: Task<String?, Never>)?

    /// A Quick Question panel. Its choice comes from `preferences` (``ChatModelChoice/quickQuestionKey``),
    /// else `chat-latest`; `makeStreaming` gives the streaming service for a choice; "Open in
    /// Chat" saves into `store`.
    public init(
        preferences: any KeyValueStore, store: any ChatHistoryStore,
        makeStreaming: @escaping @MainActor (ChatModelChoice) -> any ChatStreaming,
        now: @escaping @Sendable () -> Int64, ids: any IDGenerator, platform: ComposerKeyDecision.Platform
    ) {
        self.preferences = preferences
        self.store = store
        self.makeStreaming = makeStreaming
        self.now = now
        self.ids = ids
        self.platform = platform
        let loaded = ChatModelChoice.load(
            from: preferences, key: ChatModelChoice.quickQuestionKey, fallback: .quickQuestionDefault)
        self.choice = loaded.choice
        self.lastError = loaded.problem
    }

    /// Shows the panel with the whole prompt selected, so typing replaces it.
    public func open() {
        isVisible = true
        selection = 0..<draft.count
    }

    /// Hides the panel; the draft, the answer and an answer in flight go on.
    public func hide() {
        isVisible = false
    }

    /// Types `text` over the selection; the caret ends after it.
    public func type(_ text: String) {
        let lower = min(selection.lowerBound, draft.count)
        let upper = min(selection.upperBound, draft.count)
        let start = draft.index(draft.startIndex, offsetBy: lower)
        let end = draft.index(draft.startIndex, offsetBy: upper)
        draft.replaceSubrange(start..<end, with: text)
        let caret = lower + text.count
        selection = caret..<caret
    }

    /// Handles a key press by ``ComposerKeyDecision``: submits, inserts a new line, swallows a
    /// held Return, or passes other keys on. Returns what it did.
    @discardableResult
    public func handleKey(_ event: ComposerKeyDecision.Event) -> ComposerKeyDecision.Action {
        let action = ComposerKeyDecision.action(for: event, in: .quickQuestion, on: platform)
        switch action {
        case .submit: submit()
        case .insertNewline: type("\n")
        case .ignore, .passThrough: break
        }
        return action
    }

    /// Changes the provider and model; with `remember`, saves the choice as Quick Question's own.
    public func select(_ choice: ChatModelChoice, remember: Bool) {
        // Only a choice the next start can read back is taken (the stored form's own rule).
        do {
            _ = try ChatModelChoice(bytes: choice.bytes)
        } catch {
            lastError = "That model choice cannot be used (\(error)); \(self.choice.model) stays."
            return
        }
        self.choice = choice
        guard remember else { return }
        do {
            try preferences.set(choice.bytes, forKey: ChatModelChoice.quickQuestionKey)
        } catch {
            lastError = "The model choice could not be saved (\(error)); it holds until the app quits."
        }
    }

    /// Asks the prompt. Does nothing while an answer is arriving or when the prompt is blank.
    public func submit() {
        guard !isAnswering, !draft.allSatisfy(\.isWhitespace) else { return }
        let asked = draft
        question = asked
        answer = ""
        answerState = .streaming
        isAnswering = true
        lastError = nil
        askedAt = now()
        answeredAt = nil
        askedChoice = choice
        openedChatId = nil
        questionNumber += 1
        // The request leaves now, not when the task first runs.
        let deltas = makeStreaming(choice).reply(to: [ChatMessage(role: "user", content: asked)])
        answerTask = Task { @MainActor in
            var ending = ChatMessageRecord.State.complete
            do {
                for try await delta in deltas {
                    self.answer += delta
                }
                if Task.isCancelled {
                    ending = .stopped
                } else if self.answer.isEmpty {
                    ending = .failed(reason: ChatConversationModel.emptyReplyReason)
                }
            } catch {
                let stopped = Task.isCancelled || error is CancellationError
                ending = stopped ? .stopped : .failed(reason: ChatConversationModel.sentence(for: error))
            }
            self.finish(ending)
        }
    }

    /// Stops the answer; what arrived stays.
    public func stop() {
        answerTask?.cancel()
    }

    /// Returns once no answer is arriving.
    public func waitForAnswer() async {
        await answerTask?.value
    }

    /// Saves the question and the answer (after it finished) as a regular conversation titled
    /// by the question, in one write (all or nothing); returns its id, or `nil` with
    /// ``lastError`` set when nothing was asked or saving failed. Opening the same answer again
    /// returns the same chat instead of saving a second one.
    public func openInChat() async -> String? {
        await waitForAnswer()
        guard let question, let answerState else {
            lastError = "Ask a question first; then it can be opened in a chat."
            return nil
        }
        if let openedChatId { return openedChatId }
        let number = questionNumber
        if let opening, opening.question == number {
            joinedChatSaves += 1
            return await opening.task.value
        }
        let id = ids.makeID()
        let finishedAt = answeredAt ?? now()
        let conversation = ChatConversationRecord(
            id: id, title: ChatTitle.make(from: question), createdAt: askedAt, updatedAt: askedAt)
        let messages = [
            ChatMessageRecord(
                id: ids.makeID(), conversationId: id, role: .user, text: question, model: askedChoice.model,
                createdAt: askedAt),
            ChatMessageRecord(
                id: ids.makeID(), conversationId: id, role: .assistant, text: answer, model: askedChoice.model,
                state: answerState.stored, createdAt: askedAt, finishedAt: finishedAt),
        ]
        let store = store
        let task = Task<String?, Never> { @MainActor in
            do {
                try await store.createConversation(conversation, messages: messages)
                return id
            } catch {
                self.lastError = "The question could not be saved as a chat (\(error)). Try Open in Chat again."
                return nil
            }
        }
        opening = (number, task)
        isSavingChat = true
        let saved = await task.value
        if opening?.question == number {
            opening = nil
            isSavingChat = false
        }
        // Only the answer it was made from is taken as opened: a newer question may be asked meanwhile.
        if let saved, questionNumber == number { openedChatId = saved }
        return saved
    }

    private func finish(_ ending: ChatMessageRecord.State) {
        answerState = ChatTranscriptMessage.State(ending)
        answeredAt = now()
        isAnswering = false
        answerTask = nil
        if case .failed(let reason) = ending { lastError = reason }
    }
}

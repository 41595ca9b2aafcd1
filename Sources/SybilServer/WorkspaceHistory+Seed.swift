import SybilStore
import SybilWire

extension WorkspaceHistory {
    /// Seeds the sessions' history: per turn a user question, thinking, tool activity and
    /// the agent's reply; sess-42's first reply carries a subagent thread.
    func seed(agent: ScriptedAgent) throws {
        var timestamp = WorkspaceWorld.seedEpoch
        for session in WorkspaceWorld.sessions {
            let chat = WorkspaceChatKey(
                desktopId: session.desktopId, projectId: session.projectId, sessionId: session.sessionId)
            timestamp += 3_600_000
            try database.query(
                "INSERT INTO ws_sessions (desktop_id, project_id, session_id, title, updated_at) VALUES (?, ?, ?, ?, ?)",
                WorkspaceSchema.bind(chat) + [.text(session.title), .integer(timestamp)])
            var rows: [NewRow] = []
            for turn in 0..<session.turns {
                let question = "\(session.title): question \(turn + 1)"
                let reply = agent.reply(to: question)
                let thread = session.sessionId == "sess-42" && turn == 0 ? WorkspaceWorld.seededThreadId : nil
                for (type, text) in [
                    (TimelineRowType.user, question), (.thinking, reply.thinking), (.activity, reply.activity),
                    (.agentReply, reply.text),
                ] {
                    timestamp += 1_000
                    rows.append(
                        NewRow(
                            type: type, text: text, timestamp: timestamp,
                            subagentThreadId: type == .agentReply ? thread : nil))
                }
                if let thread {
                    for step in 0..<60 {
                        timestamp += 100
                        rows.append(
                            NewRow(
                                threadId: thread, type: step % 2 == 0 ? .activity : .agentReply,
                                text: "Subagent step \(step + 1)", timestamp: timestamp))
                    }
                }
            }
            for row in rows { try insert(row, into: chat) }
            try touch(chat, updatedAt: timestamp)
        }
    }
}

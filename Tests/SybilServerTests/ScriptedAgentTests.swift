import Testing

@testable import SybilServer

@Suite("Scripted agent", .timeLimit(.minutes(2)))
struct ScriptedAgentTests {
    @Test func theSameSeedAndPromptAlwaysGiveTheSameReply() {
        let prompts = ["Was ist ein Kaltstart?", "Fix the login", "", "🙂 emoji"]
        for prompt in prompts {
            #expect(ScriptedAgent(seed: 7).reply(to: prompt) == ScriptedAgent(seed: 7).reply(to: prompt))
        }
        let seven = prompts.map { ScriptedAgent(seed: 7).reply(to: $0).text }
        let eight = prompts.map { ScriptedAgent(seed: 8).reply(to: $0).text }
        #expect(seven != eight)
    }

    @Test func tokensJoinToTheTextAndEachEndsAtAWordBoundary() {
        let reply = ScriptedAgent(seed: 1).reply(to: "How do retries work?")
        #expect(reply.tokens.joined() == reply.text)
        #expect(reply.tokens.dropLast().allSatisfy { $0.hasSuffix(" ") })
        #expect(reply.text.contains("\u{201C}How do retries work?\u{201D}"))
        #expect(reply.ending == .complete)
        #expect(reply.subagent == nil)
    }

    @Test func promptsCanAskForFailuresAndASubagent() {
        let agent = ScriptedAgent(seed: 1)
        #expect(agent.reply(to: "x [[error]]").ending == .error(afterTokens: 3))
        #expect(agent.reply(to: "x [[INTERRUPT]]").ending == .interrupt(afterTokens: 3))
        #expect(agent.reply(to: "Use a subagent for this").subagent?.count == 3)
        #expect(!agent.reply(to: "x [[error]]").text.contains("[[error]]"))
    }

    @Test func topicsStopAt60Characters() {
        let words = String(repeating: "word ", count: 30)
        let topic = ScriptedAgent.topic(of: words)
        #expect(topic.count <= 60)
        #expect(topic.count > 54)
        #expect(ScriptedAgent.topic(of: String(repeating: "a", count: 61)).isEmpty)
        #expect(ScriptedAgent.topic(of: String(repeating: "a", count: 60)).count == 60)
    }
}

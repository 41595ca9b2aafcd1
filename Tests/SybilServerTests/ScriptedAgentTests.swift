import SybilCore
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

    @Test func anASCIIPromptReadByteByByteGivesTheSameTopicAndSubagentAsByCharacter() {
        // Prompts of bytes drawn from pieces that meet every case: each kind of whitespace,
        // CR LF, "[[" words, upper case, other ASCII controls and long words.
        let pieces = [
            " ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", "\u{1F}", "\u{7F}", "[[error]]", "[[Interrupt]]", "[[",
            "[", "[x",
            "SubAgent", "subagent", "SUBAGENT", "sub", "agent", "Fix", "the", "login", "a", "Z",
            String(repeating: "w", count: 25), String(repeating: "q", count: 61), "?", "!",
        ]
        let random = SeededRandomSource(seed: 30)
        var prompts = ["", " ", "[[", "x [[error]]", String(repeating: "word ", count: 30)]
        for _ in 0..<2000 {
            var prompt = ""
            for _ in 0..<Int(random.next(below: 14)) { prompt += pieces[Int(random.next(below: UInt64(pieces.count)))] }
            prompts.append(prompt)
        }
        var asciiTopics = 0
        for prompt in prompts {
            let byBytes = ScriptedAgent.asciiTopic(of: prompt)
            if byBytes != nil { asciiTopics += 1 }
            #expect(byBytes == ScriptedAgent.characterTopic(of: prompt), "\(Array(prompt.utf8))")
            #expect(
                ScriptedAgent.mentionsSubagent(prompt) == prompt.lowercased().contains("subagent"),
                "\(Array(prompt.utf8))")
            let lowered = prompt.lowercased()
            let ending: ScriptedAgent.Ending =
                lowered.contains("[[error]]")
                ? .error(afterTokens: 3) : lowered.contains("[[interrupt]]") ? .interrupt(afterTokens: 3) : .complete
            #expect(ScriptedAgent(seed: 30).reply(to: prompt).ending == ending, "\(Array(prompt.utf8))")
        }
        #expect(asciiTopics == prompts.count)
        // Other prompts are read by character.
        #expect(ScriptedAgent.asciiTopic(of: "Was ist ein Kaltstart? \u{212A}") == nil)
        #expect(ScriptedAgent.mentionsSubagent("Ein SUBAGENT, bitte \u{212A}"))
    }
}

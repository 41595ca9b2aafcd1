import Foundation
import SybilClient
import Testing

/// How long a chat waits for a server: seed 004's values for a server elsewhere, five minutes
/// without a timeout retry for one on this machine, and a wait the person gives for both.
@Suite("ReplyWait: the wait for a server's reply")
struct ReplyWaitTests {
    @Test(
        "a loopback or localhost server waits 5 minutes and does not retry a timeout",
        arguments: [
            "http://127.0.0.1:11434", "http://localhost:8080/v1", "http://LOCALHOST.:1234", "http://127.1.2.3:8000",
            "http://ollama.localhost", "http://[::1]:11434",
            // The address vLLM and llama.cpp print when they listen on every interface: asked
            // for, it is this machine.
            "http://0.0.0.0:8000/v1", "http://[::]:8000",
            // Other spellings of the IPv6 loopback, and the IPv4 one mapped into IPv6.
            "http://[0:0:0:0:0:0:0:1]:8000", "http://[::ffff:127.0.0.1]:8000",
        ])
    func local(url: String) {
        let wait = ReplyWait.forServer(at: URL(string: url)!, seconds: nil)
        #expect(wait == ReplyWait(head: .seconds(300), silence: .seconds(300), retriesTimeout: false))
    }

    @Test(
        "a server elsewhere keeps 60 s for the head, 30 s of silence and the retry",
        arguments: [
            "https://api.openai.com/v1", "http://10.0.0.5:11434", "http://128.0.0.1", "http://127.0.0.1.example.com",
            "http://localhost.example.com", "http://[::2]:80", "http://0.0.0.1", "http://[::ffff:10.0.0.1]",
        ])
    func remote(url: String) {
        let wait = ReplyWait.forServer(at: URL(string: url)!, seconds: nil)
        #expect(wait == ReplyWait(head: .seconds(60), silence: .seconds(30), retriesTimeout: true))
    }

    @Test func aGivenWaitIsUsedForTheHeadAndTheSilence() {
        #expect(
            ReplyWait.forServer(at: URL(string: "http://127.0.0.1:11434")!, seconds: 900)
                == ReplyWait(head: .seconds(900), silence: .seconds(900), retriesTimeout: false))
        #expect(
            ReplyWait.forServer(at: URL(string: "https://api.example.com")!, seconds: 120)
                == ReplyWait(head: .seconds(120), silence: .seconds(120), retriesTimeout: true))
    }
}

import SybilCore
import Testing

@Suite("sybil debug envelope", .timeLimit(.minutes(2)))
struct DebugEnvelopeCommandTests {
    static let valid = """
        {"boundaryToken":"b","codexSessionId":null,"loadState":{"state":"ready"},"storageFormat":"indexed",
         "loadedEntries":1,"hasOlderEntries":false,"oldestCursor":null,
         "timeline":[{"id":"r1","type":"user","origin":"canonical","sourceOrder":[1],"timestamp":2,"text":"Hi"}],
         "liveOverlay":{"revision":0,"settlementEpoch":1,"blocks":[]},"activeRun":null,"runtime":null}
        """

    @Test func validEnvelopePrintsNormalisedJSON() async throws {
        let test = TestIO(files: ["e.json": Array(Self.valid.utf8)])
        #expect(await test.run("debug", "envelope", "e.json") == 0)
        #expect(test.stderr == "")
        #expect(
            test.stdout == """
                {
                  "boundaryToken": "b",
                  "codexSessionId": null,
                  "loadState": {
                    "state": "ready"
                  },
                  "storageFormat": "indexed",
                  "loadedEntries": 1,
                  "hasOlderEntries": false,
                  "oldestCursor": null,
                  "timeline": [
                    {
                      "type": "user",
                      "id": "r1",
                      "origin": "canonical",
                      "sourceOrder": [
                        1
                      ],
                      "timestamp": 2,
                      "text": "Hi"
                    }
                  ],
                  "liveOverlay": {
                    "settlementEpoch": 1,
                    "revision": 0,
                    "blocks": []
                  },
                  "runtime": null,
                  "activeRun": null
                }

                """)
        // The output is itself a valid envelope.
        #expect(throws: Never.self) { try JSONReader().parse(test.stdout) }
    }

    @Test func readsStandardInputWithoutFileOrWithDash() async {
        for arguments in [["debug", "envelope"], ["debug", "envelope", "-"]] {
            let test = TestIO(stdin: Array(Self.valid.utf8), readSize: 7)
            #expect(await test.run(arguments) == 0)
            #expect(test.stdout.hasPrefix("{\n  \"boundaryToken\": \"b\""))
        }
    }

    @Test func invalidEnvelopeExits65WithOneLineNamingPathAndRule() async {
        let broken = Self.valid.replacingOccurrences(of: "\"sourceOrder\":[1]", with: "\"sourceOrder\":[1.5]")
        let test = TestIO(stdin: Array(broken.utf8))
        #expect(await test.run("debug", "envelope") == 65)
        #expect(test.stdout == "")
        #expect(
            test.stderr
                == "sybil: invalid envelope: timeline[0].sourceOrder[0]: expected an unsigned integer literal without fraction or exponent, got 1.5\n"
        )
    }

    @Test func syntaxErrorNamesTheByteOffset() async {
        let test = TestIO(stdin: Array(#"{"boundaryToken":"b",}"#.utf8))
        #expect(await test.run("debug", "envelope") == 65)
        #expect(test.stderr == "sybil: invalid envelope: $: trailing comma before '}' (at byte 21)\n")
    }

    @Test func emptyInputIsInvalid() async {
        let test = TestIO()
        #expect(await test.run("debug", "envelope") == 65)
        #expect(test.stderr == "sybil: invalid envelope: $: unexpected end of input; expected a value (at byte 0)\n")
    }

    @Test func missingFileExits66() async {
        let test = TestIO()
        #expect(await test.run("debug", "envelope", "nope.json") == 66)
        #expect(test.stderr == "sybil: cannot read 'nope.json': no such file\n")
    }

    @Test func usageErrorsExit64() async {
        let test = TestIO()
        #expect(await test.run("debug", "envelope", "a", "b") == 64)
        #expect(
            test.stderr
                == "sybil debug envelope: takes one FILE, got another: 'b'\nRun 'sybil debug envelope --help' for usage.\n"
        )
        let unknown = TestIO()
        #expect(await unknown.run("debug", "envelope", "--pretty") == 64)
        #expect(unknown.stderr.hasPrefix("sybil debug envelope: unknown option '--pretty'\n"))
    }
}

@Suite("sybil debug sse", .timeLimit(.minutes(2)))
struct DebugSSECommandTests {
    static let stream =
        "\u{FEFF}: hello\r\nid: 7\nevent: delta\ndata: {\"t\":\"Grüße\"}\n\nretry: 2500\ndata: a\ndata: b\r\n\r\nid: 99\ndata: unterminated\n"

    @Test func printsOneLinePerEventAndAnEndLine() async {
        let test = TestIO(files: ["s.txt": Array(Self.stream.utf8)])
        #expect(await test.run("debug", "sse", "s.txt") == 0)
        #expect(
            test.stdout == """
                {"type":"delta","data":"{\\"t\\":\\"Grüße\\"}","lastEventId":"7"}
                {"type":"message","data":"a\\nb","lastEventId":"7"}
                {"end":true,"lastEventId":"7","reconnectionTime":2500}

                """)
    }

    @Test func everyChunkSizeGivesTheSameOutput() async {
        let reference = TestIO(stdin: Array(Self.stream.utf8))
        #expect(await reference.run("debug", "sse") == 0)
        for size in 1...12 {
            let test = TestIO(stdin: Array(Self.stream.utf8))
            #expect(await test.run("debug", "sse", "--chunk-bytes", String(size)) == 0)
            #expect(test.stdout == reference.stdout, "--chunk-bytes \(size)")
            let pipe = TestIO(stdin: Array(Self.stream.utf8), readSize: size)
            #expect(await pipe.run("debug", "sse", "--chunk-bytes=\(size)") == 0)
            #expect(pipe.stdout == reference.stdout, "reads of \(size) bytes")
        }
    }

    @Test func noRetryPrintsNull() async {
        let test = TestIO(stdin: Array("data: x\n\n".utf8))
        #expect(await test.run("debug", "sse") == 0)
        #expect(
            test.stdout == """
                {"type":"message","data":"x","lastEventId":""}
                {"end":true,"lastEventId":"","reconnectionTime":null}

                """)
    }

    @Test(
        "chunk size boundaries",
        arguments: [("0", false), ("1", true), ("16777216", true), ("16777217", false), ("x", false), ("-1", false)])
    func chunkBytesBoundaries(value: String, accepted: Bool) async {
        let test = TestIO(stdin: Array("data: x\n\n".utf8))
        let status = await test.run("debug", "sse", "--chunk-bytes", value)
        #expect(status == (accepted ? 0 : 64))
        if !accepted {
            #expect(
                test.stderr
                    == "sybil debug sse: --chunk-bytes needs a whole number from 1 to 16777216, got '\(value)'\nRun 'sybil debug sse --help' for usage.\n"
            )
        }
    }

    @Test func chunkBytesNeedsAValue() async {
        let test = TestIO()
        #expect(await test.run("debug", "sse", "--chunk-bytes") == 64)
        #expect(test.stderr.hasPrefix("sybil debug sse: --chunk-bytes needs a value (N)\n"))
    }

    @Test func missingFileExits66() async {
        let test = TestIO()
        #expect(await test.run("debug", "sse", "missing.txt") == 66)
        #expect(test.stderr == "sybil: cannot read 'missing.txt': no such file\n")
    }
}

@Suite("sybil command dispatch", .timeLimit(.minutes(2)))
struct CommandDispatchTests {
    @Test func unknownCommandExits64() async {
        let test = TestIO()
        #expect(await test.run("frobnicate") == 64)
        #expect(test.stderr == "sybil: unknown command 'frobnicate'\nRun 'sybil --help' for usage.\n")
        let sub = TestIO()
        #expect(await sub.run("debug", "json") == 64)
        #expect(sub.stderr == "sybil debug: unknown subcommand 'json'\nRun 'sybil debug --help' for usage.\n")
    }
}

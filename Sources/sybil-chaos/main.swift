import Foundation
import SybilChaos

// `sybil-chaos drive|check --url URL --token TOKEN --dir DIR --messages N [--limit SECONDS]`:
// the driver and the checker of the kill -9 delivery test (scripts/kill9 runs them).

let usage = """
    USAGE: sybil-chaos drive|check --url URL --token TOKEN --dir DIR --messages N [--limit SECONDS]

    drive   Queue the N messages across the workspace chat, the Agent room and a chat through the
            client outboxes and stores kept in DIR, resuming what an earlier (killed) run left;
            exit 0 once all are queued and delivered.
    check   Compare the server's records (Agent room, workspace chat) and DIR's chat history with
            the plan, and DIR's outboxes; print the summary; exit 0 when all held.

    """

func fail(_ message: String, status: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("sybil-chaos: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(arguments.isEmpty ? 64 : 0)
}
let command = arguments.removeFirst()
var options: [String: String] = [:]
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    guard ["--url", "--token", "--dir", "--messages", "--limit"].contains(name), !arguments.isEmpty else {
        fail("unknown option or missing value: \(name)")
    }
    options[name] = arguments.removeFirst()
}
guard let url = options["--url"].flatMap(URL.init(string:)), let token = options["--token"],
    let directory = options["--dir"], let count = options["--messages"].flatMap(Int.init), (1...99_999).contains(count)
else { fail("needs --url, --token, --dir and --messages (1…99999)") }
let limit = Duration.seconds(options["--limit"].flatMap(Int.init) ?? 600)
let connection = ChaosConnection(baseURL: url, token: token)
let plan = DeliveryPlan(count: count)

switch command {
case "drive":
    let driver = DeliveryDriver(connection: connection, directory: directory, plan: plan) { line in
        FileHandle.standardError.write(Data("sybil-chaos: \(line)\n".utf8))
    }
    do {
        try await driver.run(limit: limit)
        print("done")
    } catch {
        fail("\(error)", status: 69)
    }
case "check":
    do {
        let report = try await DeliveryCheck(connection: connection, directory: directory, plan: plan).run()
        print("messages \(report.messages)")
        for (surface, seen) in report.seen.sorted(by: { $0.key < $1.key }) { print("seen.\(surface) \(seen)") }
        print("duplicates \(report.duplicates)")
        print("missing \(report.missing)")
        print("out_of_order \(report.outOfOrder)")
        print("store_problems \(report.storeProblems.count)")
        for problem in report.storeProblems.prefix(10) { print("problem \(problem)") }
        for example in report.examples { print("example \(example)") }
        exit(report.passed ? 0 : 1)
    } catch {
        fail("the check could not run: \(error)", status: 69)
    }
default:
    fail("unknown command '\(command)'")
}

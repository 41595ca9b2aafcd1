/// The declaration of `sybil app` (what `sybil` opens on a terminal): options and help.
extension TerminalAppCommand {
    static let spec = CommandSpec<Options>(
        name: TerminalAppCommand.name, overview: "Open the full-screen terminal app.",
        discussion: """
            The terminal app: a sidebar with the chats, Sybil Agent and the workspaces
            (desktops, projects, sessions), the open one's timeline, and a composer. On launch a
            new chat's composer has focus: type and press Return to send, and the reply streams
            in. Alt+Enter, Ctrl+J or Shift+Enter starts a new line; Tab moves the focus; Ctrl+K
            searches the saved chats and web searches; Ctrl+Alt+N asks a new web search; F5
            opens a meditation timer; F1 lists every key. Ctrl+C stops a reply; Ctrl+C twice,
            or Ctrl+D on an empty composer, quits.

            Each chat asks for its own model, kept with it (and asked again by sybil ask -c):
            /model in the composer lists the server's models with the chat's marked, /model
            NAME picks one the server lists, and F6 picks the next; the header names it. New
            chats start with --model, the profile's model or the server's first.

            `sybil` with no command opens it when standard input and output are a terminal, as
            does `sybil` with only these options. With no server chosen (--profile, --api-url,
            their variables, a default profile or OPENAI_BASE_URL, as for `sybil ask`) it starts
            the reference server in-process on a free loopback port, with its data under
            $XDG_DATA_HOME/sybil/embedded so chats, the Agent room and the workspaces survive a
            relaunch. Chats are kept in $XDG_DATA_HOME/sybil/client/chats.sqlite. With
            --in-memory both stay in memory and are gone when the app closes. NO_COLOR turns
            colours off.
            """,
        options: [
            .text(
                "--model", valueName: "NAME", into: \.model,
                help: "The model new chats ask for (default: the profile's, else the\nserver's first listed model).")
        ] + ServerTarget.options().within(\.client.server) + [
            ClientCommand.inMemoryOption.withHelp(
                "Keep the embedded server's data and the chat history in\nmemory only, gone when the app closes."
            ).within(\.client),
            ChatOptions.seed(\.seed), .help,
        ],
        exitStatus: """
            0 the app was closed, 64 usage error or not a terminal, 69 the server could not be
            started, 73 the chat history could not be opened.
            """)

    /// The options of `sybil app` (and of `sybil` with only these).
    struct Options: ClientCommandOptions {
        var model: String?
        var client = ClientCommand.Options()
        var seed = 1
    }
}

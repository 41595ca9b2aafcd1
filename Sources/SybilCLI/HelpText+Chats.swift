extension HelpText {
    static let chatServerOptions = """
          --api-url URL           The server's base URL, e.g. https://api.openai.com
                                  (default: $SYBIL_API_URL, else the embedded server).
          --token TOKEN           The bearer token (default: $SYBIL_TOKEN).
          --seed N                The embedded server's agent seed (default: 1).
          -h, --help              Show this help.
        """

    static let ask = """
        OVERVIEW: Stream an answer from an AI chat server and keep the exchange.

        USAGE: sybil ask [<options>] QUESTION...

        Sends QUESTION (the arguments joined by spaces) to an OpenAI-compatible
        POST /v1/chat/completions with stream: true, through the same client stack the apps
        use: warm-up with GET /healthz, the send gate, the bearer token, the event-stream
        transport and its single retry for a cold start, a timeout or an expired token; a
        reply cut off midway is resumed where it stopped, without sending the question again.
        Prints the reply on standard output as it arrives: on a terminal as rendered Markdown,
        block by block (plain with NO_COLOR); otherwise, or with --raw, as the text arrives.

        The question is saved in the local history ($XDG_DATA_HOME/sybil/client/chats.sqlite)
        before it is sent, and the reply as it arrives; a failed reply is saved as failed, and
        Ctrl+C stops the reply and saves what arrived as stopped. The
        conversation's id is printed on standard error, for `sybil history show ID` or
        `sybil ask --chat ID`.

        Without --api-url or SYBIL_API_URL it starts the reference server in-process on a free
        loopback port and talks to it over HTTP, so it works with no setup at all.

        ARGUMENTS:
          QUESTION                What to ask.

        OPTIONS:
          -c, --continue          Continue the most recent conversation (its messages are
                                  sent along).
          --chat ID               Continue the saved conversation ID.
          --no-save               Keep nothing: the exchange lives in memory only.
          --model NAME            The model to ask for (default: sybil-scripted).
          --system TEXT           A system message sent before the messages (not saved).
          --raw                   Print the reply's Markdown as it arrives, unrendered.
        \(chatServerOptions)

        EXIT STATUS:
          0 the whole reply arrived and was saved, 64 usage error, 66 no such conversation
          to continue, 69 the server could not be reached or failed, 73 the history could
          not be written, 76 the reply broke off or the server refused the request, 130 the
          reply was stopped with Ctrl+C.

        """

    static let quick = """
        OVERVIEW: Ask a Quick Question.

        USAGE: sybil quick [<options>] QUESTION...

        Asks QUESTION (the arguments joined by spaces) the way the Quick Question panel does
        and prints the answer as it arrives (rendered Markdown on a terminal, the text itself
        otherwise or with --raw). It asks OpenAI's chat-latest unless a model was
        kept with --remember-model; that choice is Quick Question's own
        ($XDG_DATA_HOME/sybil/preferences), separate from the regular chat's. Nothing is kept
        in the history unless --open-in-chat is given.

        ARGUMENTS:
          QUESTION                What to ask.

        OPTIONS:
          --model NAME            Ask NAME this time (default: the kept model, else
                                  chat-latest).
          --remember-model        Keep --model NAME as Quick Question's model.
          --open-in-chat          Save the question and the answer as a chat in the history
                                  and print its id on standard error.
          --raw                   Print the answer's Markdown as it arrives, unrendered.
        \(chatServerOptions)

        EXIT STATUS:
          0 the whole answer arrived, 64 usage error, 69 the server could not be reached or
          failed, 73 the preference or the chat could not be saved, 76 the answer broke off
          or the server refused the request.

        """
}

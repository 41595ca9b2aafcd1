#!/usr/bin/env python3
"""End-to-end check of the terminal app: runs `sybil` in a pseudo-terminal (pexpect) with
pyte as the terminal emulator, against the embedded server with its data in a temporary
XDG_DATA_HOME, and drives it like a person: send a chat and see the streamed reply, send
to Sybil Agent and see it confirmed, attach a file that fails, remove it with /detach and send
text, send into a workspace session, search for the chat,
resize, quit, and check the terminal was restored.

Usage: terminal_app.py SYBIL_BINARY
Exit status: 0 passed, 1 a step failed (the screen is printed), 77 pexpect or pyte missing.
Every wait is generous (60 s by default, SYBIL_E2E_TIMEOUT) because the test suite runs in
parallel on small machines.
"""

import os
import signal
import sys
import tempfile
import time

try:
    import pexpect
    import pyte
except ImportError as error:  # pragma: no cover - depends on the machine
    print(f"skipped: {error} (pip install pexpect pyte)")
    sys.exit(77)

TIMEOUT = float(os.environ.get("SYBIL_E2E_TIMEOUT", "60"))


class Terminal:
    """The app in a pty, its output fed to a pyte screen; every byte is kept."""

    def __init__(self, binary, columns, rows, env):
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.child = pexpect.spawn(binary, [], dimensions=(rows, columns), env=env, timeout=TIMEOUT)

    def pump(self, wait=0.05):
        try:
            data = self.child.read_nonblocking(65536, timeout=wait)
        except pexpect.TIMEOUT:
            return False
        except pexpect.EOF:
            return None
        self.raw.extend(data)
        self.stream.feed(data)
        return True

    def text(self):
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, what, predicate, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.text()):
                return
            if self.pump(0.1) is None:
                break
        if predicate(self.text()):
            return
        fail(f"timed out waiting for {what}", self)

    def send(self, data):
        self.child.send(data)

    def resize(self, columns, rows):
        self.screen.resize(rows, columns)
        self.child.setwinsize(rows, columns)


def fail(message, terminal):
    print(f"FAILED: {message}")
    print("---- screen ----")
    print(terminal.text())
    print("----------------")
    try:
        terminal.child.terminate(force=True)
    except Exception:
        pass
    sys.exit(1)


def finish(term):
    """Waits for the app to exit; checks status 0 and that the terminal was put back."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and term.pump(0.1) is not None:
        pass
    term.child.expect(pexpect.EOF, timeout=TIMEOUT)
    term.child.close()
    if term.child.exitstatus != 0:
        fail(f"the app exited with {term.child.exitstatus} (signal {term.child.signalstatus})", term)
    tail = bytes(term.raw[-400:])
    if b"\x1b[?1049l" not in tail:
        fail("the alternate screen was not left at exit", term)
    if b"\x1b[?25h" not in tail:
        fail("the cursor was not shown again at exit", term)


def step(message):
    print(f"ok: {message}", flush=True)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 64
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="sybil-e2e-") as data:
        env = dict(os.environ)
        env.update({"XDG_DATA_HOME": data, "TERM": "xterm-256color", "LANG": "C.UTF-8"})
        for name in ("SYBIL_API_URL", "SYBIL_TOKEN", "NO_COLOR"):
            env.pop(name, None)
        term = Terminal(binary, 100, 30, env)

        term.wait_for("the composer", lambda t: "Message Sybil…" in t)
        step("the app opened with the composer of a new chat")

        term.send("Tell me about terminals\r")
        term.wait_for("the streamed reply", lambda t: "You asked about" in t)
        term.wait_for("the end of the reply", lambda t: "typing" not in t)
        step("a chat reply streamed in")

        # Esc: focus to the sidebar; the new chat is selected; ↓ to Sybil Agent; Return opens it.
        term.send("\x1b")
        time.sleep(0.2)
        term.send("\x1b[B\r")
        term.wait_for("the Agent room", lambda t: "Message Sybil Agent…" in t)
        term.send("Hello agent from the terminal\r")
        term.wait_for("the Agent message", lambda t: "Hello agent from the terminal" in t)
        term.wait_for(
            "the Agent message confirmed",
            lambda t: "Hello agent from the terminal" in t
            and "Queued" not in t
            and "Sending…" not in t
            and "waiting for the room" not in t,
        )
        step("an Agent room message was confirmed")

        # A file that fails to attach stays in the draft with its state; /detach removes it and
        # plain text is sent (seed 003: per-item error and removal; a failed item never blocks).
        bad = os.path.join(data, "bad.png")
        with open(bad, "wb") as handle:
            handle.write(b"not a picture")
        term.send(f"/attach {bad}\r")
        term.wait_for("the failed attachment", lambda t: "bad.png failed" in t)
        term.send("/attachments\r")
        term.wait_for("the draft listing", lambda t: "1 bad.png failed" in t)
        term.send("/detach 1\r")
        term.wait_for("the removal", lambda t: "Removed bad.png" in t)
        term.send("Text after the failed file\r")
        term.wait_for(
            "the text confirmed",
            lambda t: "Text after the failed file" in t
            and "Queued" not in t
            and "Sending…" not in t
            and "waiting for the room" not in t
            and "Wait until" not in t,
        )
        step("a failed attachment was removed with /detach and text was sent")

        # The first workspace session is the next selectable row after the Agent room.
        term.send("\x1b")
        time.sleep(0.2)
        term.send("\x1b[B\r")
        term.wait_for("a workspace session", lambda t: "Message the workspace session…" in t)
        term.send("Hello workspace\r")
        term.wait_for("the workspace message", lambda t: "Hello workspace" in t)
        term.wait_for("the workspace message accepted", lambda t: "Hello workspace" in t and "Sending…" not in t)
        step("a message went into a workspace session")

        term.send("\x0b")  # Ctrl+K
        term.wait_for("the search overlay", lambda t: "Search chats" in t)
        # Return right after typing: the best hit opens once the search has answered.
        term.send("terminals\r")
        term.wait_for("the chat opened from search", lambda t: "Search chats" not in t and "You asked about" in t)
        step("search found the chat and opened it")

        term.send("\x11")  # Ctrl+Q
        term.wait_for("the Quick Question panel", lambda t: "Quick Question" in t)
        term.send("What is a pty?\r")
        term.wait_for("the Quick Question answer", lambda t: "about “What is a pty?”" in t)
        term.send("\x0f")  # Ctrl+O: open in a chat
        term.wait_for(
            "the answer opened as a chat", lambda t: "Quick Question" not in t and "│ What is a pty?" in t
        )
        step("a Quick Question was answered and opened in a chat")

        term.resize(80, 24)
        term.wait_for(
            "a redraw at 80x24",
            lambda t: len(t.split("\n")) == 24 and "Ctrl+D quit" in t.split("\n")[23],
        )
        step("the screen was redrawn at the new size")

        term.send("\x1a")  # Ctrl+Z: the terminal is put back and the process stops
        term.wait_for("the suspend", lambda t: b"\x1b[?1049l" in term.raw[-400:])
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and open(f"/proc/{term.child.pid}/stat").read().split()[2] != "T":
            time.sleep(0.05)
        before = len(term.raw)
        os.kill(term.child.pid, signal.SIGCONT)
        term.wait_for(
            "the redraw after SIGCONT",
            lambda t: b"\x1b[?1049h" in term.raw[before:] and "Ctrl+D quit" in t.split("\n")[23],
        )
        step("Ctrl+Z suspended the app and SIGCONT brought it back")

        term.send("\x04")  # Ctrl+D on the empty composer
        finish(term)
        step("Ctrl+D quit with status 0 and the terminal was restored")

        # A relaunch finds the chat again (the data lives under XDG_DATA_HOME); Ctrl+C twice quits.
        term = Terminal(binary, 100, 30, env)
        term.wait_for("the saved chat after a relaunch", lambda t: "Tell me about terminals" in t)
        term.send("\x03")
        term.wait_for("the Ctrl+C hint", lambda t: "Press Ctrl+C again to quit." in t)
        term.send("\x03")
        finish(term)
        step("a relaunch listed the saved chat and Ctrl+C twice quit with status 0")
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

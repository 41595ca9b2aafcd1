"""The terminal app's start-up and idle memory: usage: app_start.py RUNS SYBIL

Starts `SYBIL app` in a pseudo-terminal of 100x30 (XDG_DATA_HOME from the environment, which
holds the saved chats), times from process start to the first painted frame (the sidebar's
"Chats" heading on screen), then waits 3 s and reads the idle resident memory (VmRSS), and
quits with Ctrl+C twice. Prints the median and worst of RUNS runs."""
import os
import statistics
import sys
import time

import pexpect

from procstatus import rss_kib


def one_run(sybil):
    start = time.monotonic()
    app = pexpect.spawn(sybil, ["app"], env=dict(os.environ, TERM="xterm-256color"), dimensions=(30, 100))
    app.expect("Chats", timeout=30)
    painted = (time.monotonic() - start) * 1000
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            app.read_nonblocking(1 << 16, timeout=0.2)
        except pexpect.TIMEOUT:
            pass
    rss = rss_kib(app.pid) / 1024
    app.sendcontrol("c")
    app.sendcontrol("c")
    app.expect(pexpect.EOF, timeout=10)
    return painted, rss


def main():
    runs, sybil = int(sys.argv[1]), sys.argv[2]
    one_run(sybil)
    results = [one_run(sybil) for _ in range(runs)]
    painted = [r[0] for r in results]
    rss = [r[1] for r in results]
    print(f"sybil app: first painted frame median {statistics.median(painted):.1f} ms, worst {max(painted):.1f} ms; "
          f"idle RSS median {statistics.median(rss):.1f} MiB, worst {max(rss):.1f} MiB ({runs} runs)")


main()

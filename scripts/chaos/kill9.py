#!/usr/bin/env python3
"""The kill -9 delivery test's supervisor (scripts/kill9 runs it; see its --help).

Starts `sybil serve` on a temporary data directory and a free port, starts the driver
(`sybil-chaos drive`), kills it with SIGKILL after seeded random delays and starts it again,
kills and restarts the server a few times as well, lets the driver finish, restarts the server
once more, then runs the checker (`sybil-chaos check`) and prints a summary.
"""

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


class QueueProgress:
    """Follows the newest message a driver life reports queued (its "queued m-…" lines on
    standard error), copying every line to the driver's log."""

    def __init__(self, driver, log, newest):
        self.newest = newest
        self.ended = False
        self.condition = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(driver, log), daemon=True)
        self.thread.start()

    def _read(self, driver, log):
        for line in driver.stderr:
            log.write(line)
            log.flush()
            words = line.split()
            if len(words) >= 3 and words[1] == b"queued" and words[2].startswith(b"m-"):
                with self.condition:
                    self.newest = max(self.newest, int(words[2][2:]))
                    self.condition.notify_all()
        with self.condition:
            self.ended = True
            self.condition.notify_all()

    def wait_for(self, index, deadline):
        """Returns once message `index` was queued, the driver ended, or the deadline passed."""
        with self.condition:
            while self.newest < index and not self.ended and time.monotonic() < deadline:
                self.condition.wait(timeout=1)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, binary, port, token, data_dir, log):
        self.binary, self.port, self.token, self.data_dir, self.log = binary, port, token, data_dir, log
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--token", self.token,
             "--data-dir", self.data_dir, "--pace", "0"],
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"kill9: sybil serve exited with {self.process.returncode}; see {self.log.name}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        sys.exit("kill9: sybil serve did not listen within 30 s")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/kill9",
        description="Kill -9 delivery test: N messages across the workspace chat, the Agent room and a chat "
        "through the real client outboxes, the driver killed with SIGKILL K times and the server a few "
        "times; every message must reach its conversation exactly once, in order, and the driver's "
        "stores must be intact.")
    parser.add_argument("--messages", type=int, default=1000, help="messages to queue (default: 1000)")
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs of the driver (default: 100)")
    parser.add_argument("--server-restarts", type=int, default=3,
                        help="SIGKILLs and restarts of the server while the driver runs (default: 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill delays (default: 1)")
    parser.add_argument("--max-delay", type=float, default=None,
                        help="longest random wait before each of the second half of the kills, in seconds (the "
                        "first half land as the driver queues randomly chosen messages; default: twice the "
                        "expected run time over the kills; the Agent room takes 60 messages a minute)")
    parser.add_argument("--bin", default=None, help="folder with sybil and sybil-chaos (default: .build/debug)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    parser.add_argument("--timeout", type=float, default=900, help="give up after this many seconds (default: 900)")
    args = parser.parse_args()
    if not 1 <= args.messages <= 99999:
        parser.error("--messages must be 1…99999")
    if args.kills < 0 or args.server_restarts < 0:
        parser.error("--kills and --server-restarts must not be negative")

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    bin_dir = args.bin or os.path.join(root, ".build", "debug")
    sybil, chaos = os.path.join(bin_dir, "sybil"), os.path.join(bin_dir, "sybil-chaos")
    for binary in (sybil, chaos):
        if not os.access(binary, os.X_OK):
            sys.exit(f"kill9: {binary} is not built (swift build --product sybil --product sybil-chaos)")

    if args.max_delay is None:
        agent = args.messages / 3
        expected = 0.3 + args.messages / 30 if agent <= 60 else (agent - 60) * 0.6
        args.max_delay = max(0.1, 2 * expected / max(1, args.kills))
    rng = random.Random(args.seed)
    # The first half of the kills land as the driver queues chosen messages, the rest at random
    # moments while it sends and resends.
    by_queue = args.kills - args.kills // 2
    queue_points = sorted(rng.choices(range(args.messages), k=by_queue)) if args.messages > 1 else []
    work = tempfile.mkdtemp(prefix="sybil-kill9-")
    port, token = free_port(), f"kill9-{args.seed}"
    url = f"http://127.0.0.1:{port}"
    server_log = open(os.path.join(work, "serve.log"), "ab")
    driver_log = open(os.path.join(work, "driver.log"), "ab")
    server = Server(sybil, port, token, os.path.join(work, "server"), server_log)
    driver_dir = os.path.join(work, "driver")
    drive = [chaos, "drive", "--url", url, "--token", token, "--dir", driver_dir,
             "--messages", str(args.messages), "--limit", "900"]
    started = time.monotonic()
    deadline = started + args.timeout
    # The server goes down after these driver kills (spread evenly over the run).
    server_kills_at = {(i + 1) * args.kills // (args.server_restarts + 1) for i in range(args.server_restarts)}
    kills = launches = failures = server_restarts = 0
    server.start()
    driver = None
    progress = None
    try:
        while True:
            if time.monotonic() > deadline:
                sys.exit(f"kill9: gave up after {args.timeout:.0f} s; see {work}")
            if driver is None:
                driver = subprocess.Popen(drive, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL)
                progress = QueueProgress(driver, driver_log, progress.newest if progress else -1)
                launches += 1
            if kills < args.kills:
                try:
                    if kills < len(queue_points):
                        # Lands right after the driver reported queuing that message: inside the
                        # run however fast the machine is.
                        progress.wait_for(queue_points[kills], deadline)
                        driver.wait(timeout=0.001)
                    else:
                        # Lands at a random moment: inside a send, a resend or a wait.
                        driver.wait(timeout=rng.uniform(0, args.max_delay))
                except subprocess.TimeoutExpired:
                    if kills in server_kills_at:
                        # The server dies and comes back while the driver carries on.
                        server_kills_at.discard(kills)
                        server.kill()
                        time.sleep(rng.uniform(0.1, 1.0))
                        server.start()
                        server_restarts += 1
                        continue
                    driver.send_signal(signal.SIGKILL)
                    driver.wait()
                    driver = None
                    kills += 1
                    continue
            else:
                driver.wait()
            if driver.returncode == 0:
                break
            driver = None
            failures += 1
            if failures > 20 + args.kills:
                sys.exit(f"kill9: the driver keeps failing; see {driver_log.name}")
        # An acknowledged write survives a crash: the server dies once more before the check.
        server.kill()
        server.start()
        server_restarts += 1
        check = subprocess.run(
            [chaos, "check", "--url", url, "--token", token, "--dir", driver_dir, "--messages", str(args.messages)],
            capture_output=True, text=True)
    finally:
        server.kill()
    wall = time.monotonic() - started
    figures = dict(line.split(" ", 1) for line in check.stdout.splitlines() if " " in line)
    print(f"messages        {args.messages}")
    print(f"seed            {args.seed} (kill delays 0…{args.max_delay:.2f} s)")
    print(f"driver kills    {kills}" + ("" if kills == args.kills else f" of {args.kills} (the driver finished first)"))
    print(f"driver launches {launches} ({failures} ended early with an error, restarted)")
    print(f"server restarts {server_restarts}")
    for key in ("duplicates", "missing", "out_of_order", "store_problems"):
        print(f"{key.replace('_', ' '):<15} {figures.get(key, '?')}")
    print(f"wall time       {wall:.1f} s")
    for line in check.stdout.splitlines():
        if line.startswith(("problem ", "example ")):
            print(line)
    if check.stderr:
        print(check.stderr.strip(), file=sys.stderr)
    passed = check.returncode == 0
    print("result          " + ("passed" if passed else f"FAILED (folder kept: {work})"))
    if passed and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    elif passed:
        print(f"folder          {work}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()

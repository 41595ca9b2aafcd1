#!/usr/bin/env python3
"""The hostile peers of scripts/hostile: each case attacks the release build of sybil from one
side (a hostile server for the client commands, a hostile client for `sybil serve`) and prints
one line: the case, held or not, and the victim's peak RSS (VmHWM from /proc/PID/status).

Every peer is bounded: it listens and connects on loopback only, and each flood stops after
FLOOD_BYTES or FLOOD_SECONDS, whichever comes first, so a victim that reads everything costs
a fixed amount instead of the machine.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

FLOOD_BYTES = 2 << 30  # the most one flood sends
FLOOD_SECONDS = 10.0  # the longest one flood lasts
CLIENT_HELD_MIB = 200  # a client victim holding more than this did not hold
SERVER_GROWTH_HELD_MIB = 128  # a server victim growing more than this did not hold
TOKEN = "hostile-token"
BLOCK = b"x" * (64 << 10)


# MARK: Measuring the victim


def vm_hwm_kib(pid):
    """The peak resident set of a live process in KiB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Victim:
    """A sybil process whose peak RSS is sampled until it ends (then wait4's ru_maxrss, the
    same peak, covers the last moments between samples)."""

    def __init__(self, argv, env, stdin=subprocess.DEVNULL):
        self.process = subprocess.Popen(
            argv, env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.peak_kib = 0
        self.status = None
        self.stderr = b""
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()
        self._errors = threading.Thread(target=self._read_errors, daemon=True)
        self._errors.start()

    def _read_errors(self):
        # Only the first 64 KiB: a victim that prints without end must not fill this process.
        data = self.process.stderr.read(64 << 10)
        self.stderr = data or b""
        while self.process.stderr.read(64 << 10):
            pass

    def _sample(self):
        while not self._stop.is_set():
            hwm = vm_hwm_kib(self.process.pid)
            if hwm is not None:
                self.peak_kib = max(self.peak_kib, hwm)
            time.sleep(0.05)

    def wait(self, seconds):
        """Waits up to `seconds` for the victim to end, then stops it; returns its status."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                return self._ended(status, usage)
            time.sleep(0.05)
        hwm = vm_hwm_kib(self.process.pid)
        if hwm is not None:
            self.peak_kib = max(self.peak_kib, hwm)
        self.process.send_signal(signal.SIGKILL)
        _, status, usage = os.wait4(self.process.pid, 0)
        self._ended(status, usage)
        self.status = None  # still running: stopped by the harness
        return None

    def _ended(self, status, usage):
        self._stop.set()
        self.peak_kib = max(self.peak_kib, usage.ru_maxrss)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.status = self.process.returncode
        self._errors.join(timeout=2)
        return self.status

    @property
    def peak_mib(self):
        return self.peak_kib / 1024

    @property
    def outcome(self):
        return "stopped by the harness" if self.status is None else f"exit {self.status}"


# MARK: A bounded hostile server


def flood(connection, block, deadline=None):
    """Sends `block` until FLOOD_BYTES, the deadline, or the peer stops reading or leaves;
    returns the bytes sent."""
    deadline = deadline or time.monotonic() + FLOOD_SECONDS
    sent = 0
    connection.setblocking(False)
    while sent < FLOOD_BYTES:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        _, writable, _ = select.select([], [connection], [], min(remaining, 0.2))
        if not writable:
            continue
        try:
            sent += connection.send(block)
        except BlockingIOError:
            continue
        except OSError:
            break
    connection.setblocking(True)
    return sent


def read_request(connection):
    """(method, target, headers, body) of the next request, or None at the end."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1 << 20:
            return None
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    while len(rest) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        rest += chunk
    return method, target, headers, head + b"\r\n\r\n", rest[:length]


class HostileServer:
    """A loopback server that answers each connection with `handle(connection, request)` in a
    thread of its own, and counts the requests it got."""

    def __init__(self, handle):
        self.handle = handle
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.requests = []
        self.flooded = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def count_flood(self, sent):
        with self._lock:
            self.flooded += sent

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        try:
            while True:
                request = read_request(connection)
                if request is None:
                    break
                with self._lock:
                    self.requests.append(f"{request[0]} {request[1]}")
                if not self.handle(self, connection, request):
                    break
        except OSError:
            pass
        finally:
            connection.close()

    def close(self):
        self.listener.close()


def answer(connection, status, body, content_type="application/json", close=False):
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
    if close:
        head += "Connection: close\r\n"
    connection.sendall(head.encode() + b"\r\n" + body)
    return not close


def forward(backend_port, connection, request):
    """Passes the request to the real server and its answer back, then closes."""
    _, _, _, head, body = request
    lines = [line for line in head.decode("latin-1").split("\r\n") if line]
    lines = [line for line in lines if not line.lower().startswith("connection:")]
    upstream = socket.create_connection(("127.0.0.1", backend_port))
    upstream.sendall(("\r\n".join(lines) + "\r\nConnection: close\r\n\r\n").encode("latin-1") + body)
    response = b""
    while True:
        chunk = upstream.recv(65536)
        if not chunk:
            break
        response += chunk
    upstream.close()
    connection.sendall(response)
    return False


# MARK: sybil processes


class SybilEnvironment:
    def __init__(self, binary):
        self.binary = binary
        self.home = tempfile.mkdtemp(prefix="sybil-hostile-")
        self.env = dict(os.environ)
        for variable in ("SYBIL_API_URL", "SYBIL_PROFILE", "SYBIL_TOKEN", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
            self.env.pop(variable, None)
        self.env.update(
            HOME=self.home,
            XDG_DATA_HOME=f"{self.home}/data",
            XDG_CONFIG_HOME=f"{self.home}/config",
            XDG_STATE_HOME=f"{self.home}/state",
            XDG_CACHE_HOME=f"{self.home}/cache",
            NO_COLOR="1",
        )

    def serve(self, *extra):
        """A `sybil serve` on a free port: (process, port)."""
        process = subprocess.Popen(
            [self.binary, "serve", "--port", "0", "--token", TOKEN, "--in-memory", *extra],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        line = process.stdout.readline().decode()
        match = re.search(r"127\.0\.0\.1:(\d+)", line)
        if not match:
            process.kill()
            raise SystemExit(f"hostile: sybil serve did not say its address: {line!r}")
        threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
        return process, int(match.group(1))


def stop(process):
    process.send_signal(signal.SIGKILL)
    process.wait()


# MARK: Client cases: sybil as the victim of a hostile server

SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"hostile",'
    b'"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n'
)


def chat_server(on_chat):
    def handle(server, connection, request):
        method, target, _, _, _ = request
        path = target.split("?")[0]
        if path.endswith("/healthz"):
            return answer(connection, "200 OK", b'{"status":"ok"}')
        if path.endswith("/models"):
            return answer(connection, "200 OK", b'{"object":"list","data":[{"id":"hostile","object":"model"}]}')
        if method == "POST" and path.endswith("/chat/completions"):
            return on_chat(server, connection)
        return answer(connection, "404 Not Found", b'{"error":{"message":"no such route"}}', close=True)

    return HostileServer(handle)


def ask(env, url):
    return Victim(
        [env.binary, "ask", "--api-url", url, "--model", "hostile", "--no-save", "--raw", "Hello?"], env.env
    )


def client_endless_line(env):
    def on_chat(server, connection):
        connection.sendall(SSE_HEAD + b"data: ")
        server.count_flood(flood(connection, BLOCK))
        return False

    server = chat_server(on_chat)
    victim = ask(env, server.url)
    status = victim.wait(FLOOD_SECONDS + 20)
    server.close()
    held = status == 76 and victim.peak_mib < CLIENT_HELD_MIB
    return held, victim, f"{victim.outcome}, server sent {server.flooded >> 20} MiB"


def client_chunk_flood(env):
    def on_chat(server, connection):
        connection.sendall(SSE_HEAD)
        server.count_flood(flood(connection, CHUNK * 256))
        connection.settimeout(FLOOD_SECONDS)
        connection.sendall(b"data: [DONE]\n\n")
        return False

    server = chat_server(on_chat)
    victim = ask(env, server.url)
    status = victim.wait(FLOOD_SECONDS + 20)
    server.close()
    held = victim.peak_mib < CLIENT_HELD_MIB
    return held, victim, f"{victim.outcome}, server sent {server.flooded >> 20} MiB"


def client_redirect(env):
    other = HostileServer(lambda server, connection, request: answer(connection, "200 OK", b"{}", close=True))

    def on_chat(server, connection):
        location = f"{other.url}/v1/chat/completions"
        connection.sendall(
            f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
        )
        return True

    server = chat_server(on_chat)
    victim = ask(env, server.url)
    status = victim.wait(30)
    server.close()
    other.close()
    held = status not in (0, None) and not other.requests
    return held, victim, f"{victim.outcome}, the other origin got {len(other.requests)} requests"


def agent_server(env, hostile_route):
    """A server that answers the Agent room's routes from a real `sybil serve`, except the one
    `hostile_route(server, connection, path)` takes (returning None to pass it on)."""
    backend, backend_port = env.serve()

    def handle(server, connection, request):
        path = request[1].split("?")[0]
        taken = hostile_route(server, connection, request, path)
        if taken is not None:
            return taken
        if path.endswith("/agent/stream"):
            return answer(connection, "503 Service Unavailable", b'{"error":{"message":"later"}}', close=True)
        return forward(backend_port, connection, request)

    return HostileServer(handle), backend


def tail(env, url):
    return Victim([env.binary, "agent", "tail", "--api-url", url, "--token", TOKEN], env.env)


def client_oversized_frame(env):
    def stream(server, connection, request, path):
        if not path.endswith("/agent/stream"):
            return None
        key = request[2].get("sec-websocket-key", "")
        accept = base64.b64encode(
            hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()
        ).decode()
        connection.sendall(
            (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
            ).encode()
        )
        # A text frame that claims 64 GiB, far past the 1 MiB a client reads, then its "payload".
        connection.sendall(bytes([0x81, 127]) + (64 << 30).to_bytes(8, "big"))
        server.count_flood(flood(connection, BLOCK))
        return False

    server, backend = agent_server(env, stream)
    victim = tail(env, server.url)
    status = victim.wait(FLOOD_SECONDS + 5)
    server.close()
    stop(backend)
    held = victim.peak_mib < CLIENT_HELD_MIB
    return held, victim, f"{victim.outcome}, server sent {server.flooded >> 20} MiB over {server.requests.count('GET /agent/stream')} streams"


def client_huge_content_length(env):
    def messages(server, connection, request, path):
        if not path.endswith("/agent/messages"):
            return None
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n"
            + b'{"messages":['
        )
        server.count_flood(flood(connection, b" " * len(BLOCK)))
        return False

    server, backend = agent_server(env, messages)
    victim = tail(env, server.url)
    status = victim.wait(FLOOD_SECONDS + 5)
    server.close()
    stop(backend)
    held = victim.peak_mib < CLIENT_HELD_MIB
    return held, victim, f"{victim.outcome}, server sent {server.flooded >> 20} MiB"


# MARK: Server cases: sybil serve as the victim of a hostile client


class ServedVictim:
    def __init__(self, env, *extra):
        self.process, self.port = env.serve(*extra)
        time.sleep(0.3)
        self.start_kib = vm_hwm_kib(self.process.pid) or 0

    @property
    def peak_mib(self):
        return (vm_hwm_kib(self.process.pid) or 0) / 1024

    @property
    def growth_mib(self):
        return self.peak_mib - self.start_kib / 1024

    def connect(self):
        connection = socket.create_connection(("127.0.0.1", self.port))
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def end(self):
        peak = self.peak_mib
        stop(self.process)
        return peak


def upload_head(length, token=True, upload_id="hostile-1"):
    head = (
        f"POST /agent/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
        f"X-Upload-Id: {upload_id}\r\nX-File-Name: hostile.txt\r\nContent-Length: {length}\r\n"
    )
    if token:
        head += f"Authorization: Bearer {TOKEN}\r\n"
    return (head + "\r\n").encode()


def send_all_until(connections, payloads, deadline):
    """Writes each connection's payload without blocking until all is written or the
    deadline; returns the bytes written."""
    offsets = {connection: 0 for connection in connections}
    for connection in connections:
        connection.setblocking(False)
    written = 0
    while time.monotonic() < deadline:
        pending = [c for c in connections if offsets[c] < len(payloads[c])]
        if not pending:
            break
        _, writable, _ = select.select([], pending, [], 0.2)
        for connection in writable:
            view = memoryview(payloads[connection])[offsets[connection] : offsets[connection] + (256 << 10)]
            try:
                sent = connection.send(view)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                offsets[connection] = len(payloads[connection])
                continue
            offsets[connection] += sent
            written += sent
    return written


def server_unauthenticated_uploads(env):
    victim = ServedVictim(env)
    body = b"x" * ((8 << 20) - 1)
    payload = upload_head(8 << 20, token=False) + body
    connections = [victim.connect() for _ in range(100)]
    written = send_all_until(connections, {c: payload for c in connections}, time.monotonic() + FLOOD_SECONDS)
    time.sleep(0.5)
    growth = victim.growth_mib
    for connection in connections:
        connection.close()
    peak = victim.end()
    return growth < SERVER_GROWTH_HELD_MIB, peak, f"+{growth:.0f} MiB, {written >> 20} MiB accepted by the server"


def server_pipelined_behind_stream(env):
    victim = ServedVictim(env, "--pace", "1000")
    chat = json.dumps(
        {"model": "sybil-scripted", "stream": True, "messages": [{"role": "user", "content": "Tell me a story."}]}
    ).encode()
    stream = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(chat)}\r\n\r\n"
    ).encode() + chat
    connections = [victim.connect() for _ in range(4)]
    payloads = {}
    for index, connection in enumerate(connections):
        uploads = b"".join(
            upload_head(8 << 20, upload_id=f"piped-{index}-{n}") + b"x" * (8 << 20) for n in range(16)
        )
        payloads[connection] = stream + uploads
    written = send_all_until(connections, payloads, time.monotonic() + FLOOD_SECONDS)
    time.sleep(0.5)
    growth = victim.growth_mib
    for connection in connections:
        connection.close()
    peak = victim.end()
    return growth < SERVER_GROWTH_HELD_MIB, peak, f"+{growth:.0f} MiB, {written >> 20} MiB accepted by the server"


def server_pipelined_healthz(env):
    victim = ServedVictim(env)
    connection = victim.connect()
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 5)
    connection.shutdown(socket.SHUT_WR)
    connection.settimeout(5)
    received = b""
    try:
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
    except OSError:
        pass
    connection.close()
    answers = received.count(b"HTTP/1.1 200")
    peak = victim.end()
    return answers == 5, peak, f"{answers} of 5 answered"


def server_slow_upload(env):
    victim = ServedVictim(env)
    size = 4 << 20
    rate = 2_700_000 // 8  # bytes a second at 2.7 Mbit/s
    connection = victim.connect()
    connection.sendall(upload_head(size, upload_id="slow-1"))
    sent = 0
    start = time.monotonic()
    step = rate // 10
    connection.settimeout(1)
    early = b""
    try:
        while sent < size:
            count = min(step, size - sent)
            connection.sendall(b"x" * count)
            sent += count
            time.sleep(max(0, start + sent / rate - time.monotonic()))
    except OSError:
        pass
    connection.settimeout(10)
    try:
        early = connection.recv(4096)
    except OSError:
        pass
    connection.close()
    seconds = time.monotonic() - start
    status = early.split(b"\r\n")[0].decode("latin-1", "replace") or "no answer"
    peak = victim.end()
    held = status.startswith("HTTP/1.1 20")
    return held, peak, f"{sent >> 10} KiB in {seconds:.1f} s: {status}"


def server_two_host_fields(env):
    victim = ServedVictim(env)
    connection = victim.connect()
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.com\r\n\r\n")
    connection.settimeout(5)
    try:
        reply = connection.recv(4096)
    except OSError:
        reply = b""
    connection.close()
    status = reply.split(b"\r\n")[0].decode("latin-1", "replace") or "no answer"
    peak = victim.end()
    return status.startswith("HTTP/1.1 400"), peak, status


CLIENT_CASES = [
    ("ask: one endless event-stream line", client_endless_line),
    ("ask: a flood of valid chunks", client_chunk_flood),
    ("ask: a 307 to another origin", client_redirect),
    ("agent tail: an oversized WebSocket frame, then a flood", client_oversized_frame),
    ("agent tail: a 2 GiB Content-Length answer", client_huge_content_length),
]
SERVER_CASES = [
    ("serve: 100 token-less 8 MiB uploads", server_unauthenticated_uploads),
    ("serve: uploads pipelined behind an open stream", server_pipelined_behind_stream),
    ("serve: five pipelined /healthz, then SHUT_WR", server_pipelined_healthz),
    ("serve: a 4 MiB upload at 2.7 Mbit/s", server_slow_upload),
    ("serve: two Host fields", server_two_host_fields),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sybil", required=True, help="the sybil binary under attack")
    parser.add_argument("--only", help="run only the cases whose name contains this text")
    arguments = parser.parse_args()
    env = SybilEnvironment(arguments.sybil)
    failed = 0
    print(f"{'case':<58} {'result':<8} {'peak RSS':>9}  detail")
    for name, case in CLIENT_CASES + SERVER_CASES:
        if arguments.only and arguments.only not in name:
            continue
        held, victim, detail = case(env)
        peak = victim if isinstance(victim, float) else victim.peak_mib
        who = "serve" if name.startswith("serve") else "client"
        print(f"{name:<58} {'held' if held else 'NOT HELD':<8} {peak:>5.0f} MiB  {who}: {detail}", flush=True)
        failed += 0 if held else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

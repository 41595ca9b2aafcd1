"""Load against a running `sybil serve` (see scripts/load, which starts one and runs this).

Four phases, one after the other, each a line of figures:

1. websocket: N clients on the Agent stream (GET /agent/stream); the room holds one
   message, so each client's first frame is its replay: time from connecting to it, p50/p99.
   Then one message is posted and the time until every client has its echo is measured.
2. sse: N followers on a workspace chat's events; the first event is the chat's overlay.
3. memory: the server's resident memory (VmRSS) with the phase's connections open, per
   connection, against the idle server measured before.
4. limit: more connections than the server's limit, all opened and held at once: exactly
   `limit` are served, every other is answered 503 with Retry-After, and the served ones
   still get the next message.

Exits non-zero when a phase sees an error the server should not have given.
"""

import argparse
import asyncio
import json
import sys
import time
import os
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from procstatus import rss_kib  # noqa: E402

try:
    import websockets
except ImportError:  # pragma: no cover
    print("load: the Python package websockets is missing (pip install websockets)", file=sys.stderr)
    sys.exit(69)


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


class Server:
    def __init__(self, host, port, token):
        self.host, self.port, self.token = host, port, token

    async def request(self, method, path, body=None):
        """One HTTP/1.1 request on its own connection; (status, headers, body)."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {self.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + data)
        await writer.drain()
        raw = await reader.read()
        writer.close()
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        return status, headers, rest

    async def post_message(self, text):
        body = {"requestId": str(uuid.uuid4()), "text": text, "createdAt": int(time.time() * 1000)}
        status, _, answer = await self.request("POST", "/agent/messages", body)
        if status not in (200, 202):
            raise RuntimeError(f"POST /agent/messages answered {status}: {answer[:200]!r}")

    def ws_url(self):
        return f"ws://{self.host}:{self.port}/agent/stream"


class Outcome:
    def __init__(self):
        self.first_event = []
        self.errors = {}
        self.refused = 0
        self.refused_without_retry_after = 0

    def error(self, kind):
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def open_websocket(server, outcome, handshakes, hold, echoes, marker):
    """One Agent stream client: connects, waits for its first frame, then holds the
    connection until `hold` is set, recording when the frame containing `marker` came."""
    async with handshakes:
        start = time.perf_counter()
        try:
            socket = await websockets.connect(
                server.ws_url(), additional_headers={"Authorization": f"Bearer {server.token}"},
                open_timeout=60, ping_interval=None, max_size=1 << 20,
            )
        except websockets.exceptions.InvalidStatus as refusal:
            response = refusal.response
            if response.status_code == 503:
                outcome.refused += 1
                if "Retry-After" not in response.headers:
                    outcome.refused_without_retry_after += 1
            else:
                outcome.error(f"status {response.status_code}")
            return None
        except Exception as failure:  # any other failure is an error of the run
            outcome.error(type(failure).__name__)
            return None
    try:
        await asyncio.wait_for(socket.recv(), timeout=60)
        outcome.first_event.append(time.perf_counter() - start)
    except Exception as failure:
        outcome.error(f"first frame: {type(failure).__name__}")
        await socket.close()
        return None

    async def follow():
        try:
            while True:
                frame = await socket.recv()
                if marker[0] and marker[0] in frame:
                    echoes.append(time.perf_counter())
                    return
        except Exception:
            return

    follower = asyncio.create_task(follow())
    await hold.wait()
    follower.cancel()
    return socket


async def open_sse(server, outcome, handshakes, hold, chat):
    """One workspace events follower: sends the request, waits for the first event (the
    chat's overlay), then holds the stream until `hold` is set."""
    async with handshakes:
        start = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection(server.host, server.port)
            query = f"desktopId={chat[0]}&projectId={chat[1]}&sessionId={chat[2]}"
            writer.write(
                f"GET /v1/workspaces/events?{query} HTTP/1.1\r\nHost: {server.host}\r\n"
                f"Authorization: Bearer {server.token}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=60)
        except Exception as failure:
            outcome.error(type(failure).__name__)
            return None
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    status = int(status_line.split()[1])
    if status != 200:
        if status == 503:
            outcome.refused += 1
            if b"retry-after:" not in head.lower():
                outcome.refused_without_retry_after += 1
        else:
            outcome.error(f"status {status}")
        writer.close()
        return None
    try:
        buffered = b""
        while b"event:" not in buffered or b"\n\n" not in buffered.split(b"event:", 1)[1]:
            chunk = await asyncio.wait_for(reader.read(65536), timeout=60)
            if not chunk:
                raise ConnectionResetError("the stream ended before its first event")
            buffered += chunk
        outcome.first_event.append(time.perf_counter() - start)
    except Exception as failure:
        outcome.error(f"first event: {type(failure).__name__}")
        writer.close()
        return None
    await hold.wait()
    return writer


def report(name, count, outcome, seconds, extra=""):
    firsts = outcome.first_event
    print(
        f"load {name}: {count} connections, {len(firsts)} got a first event, {describe(outcome.errors)},"
        f" time to first event p50 {percentile(firsts, 0.5) * 1000:.1f} ms p99 {percentile(firsts, 0.99) * 1000:.1f} ms,"
        f" all open in {seconds:.1f} s{extra}",
        flush=True,
    )


def describe(errors):
    if not errors:
        return "no errors"
    return f"{sum(errors.values())} errors (" + ", ".join(f"{kind}: {n}" for kind, n in errors.items()) + ")"


async def open_many(count, concurrency, open_one):
    """Starts `count` clients, at most `concurrency` handshakes at once, and waits until each
    has its first event, an error or a refusal; returns the outcome, the event that releases
    the held connections, the clients' tasks and the seconds it took."""
    outcome, hold = Outcome(), asyncio.Event()
    handshakes = asyncio.Semaphore(concurrency)
    start = time.perf_counter()
    tasks = [asyncio.create_task(open_one(outcome, handshakes, hold)) for _ in range(count)]
    while len(outcome.first_event) + sum(outcome.errors.values()) + outcome.refused < count:
        await asyncio.sleep(0.05)
    return outcome, hold, tasks, time.perf_counter() - start


async def phase_websocket(server, count, concurrency, pid, idle_rss):
    echoes, marker = [], [None]
    outcome, hold, tasks, opened = await open_many(
        count, concurrency, lambda outcome, handshakes, hold: open_websocket(
            server, outcome, handshakes, hold, echoes, marker))
    rss = rss_kib(pid) if pid else 0
    marker[0] = f"fan-out {uuid.uuid4()}"
    sent = time.perf_counter()
    await server.post_message(marker[0])
    deadline = time.monotonic() + 60
    while len(echoes) < len(outcome.first_event) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    fan_out = [moment - sent for moment in echoes]
    hold.set()
    sockets = [socket for socket in await asyncio.gather(*tasks) if socket is not None]
    missing = len(outcome.first_event) - len(echoes)
    if missing:
        outcome.errors["no echo of the posted message"] = missing
    report(
        "websocket", count, outcome, opened,
        f"; a posted message reached {len(echoes)} clients, p50 {percentile(fan_out, 0.5) * 1000:.1f} ms"
        f" p99 {percentile(fan_out, 0.99) * 1000:.1f} ms",
    )
    if pid:
        print(f"load memory: {count} Agent streams open: server RSS {rss / 1024:.1f} MiB, idle {idle_rss / 1024:.1f} MiB,"
              f" {(rss - idle_rss) / max(1, len(sockets)):.1f} KiB per connection", flush=True)
    await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
    return outcome


async def phase_sse(server, count, concurrency, chat, pid, idle_rss):
    outcome, hold, tasks, opened = await open_many(
        count, concurrency, lambda outcome, handshakes, hold: open_sse(server, outcome, handshakes, hold, chat))
    rss = rss_kib(pid) if pid else 0
    hold.set()
    writers = [writer for writer in await asyncio.gather(*tasks) if writer is not None]
    report("sse", count, outcome, opened)
    if pid:
        print(f"load memory: {count} event streams open: server RSS {rss / 1024:.1f} MiB, idle {idle_rss / 1024:.1f} MiB,"
              f" {(rss - idle_rss) / max(1, len(writers)):.1f} KiB per connection", flush=True)
    for writer in writers:
        writer.close()
    return outcome


async def phase_limit(server, count, limit, concurrency):
    """`count` Agent streams at once against `limit`: the served ones hold, the rest are 503."""
    echoes, marker = [], [None]
    outcome, hold, tasks, opened = await open_many(
        count, concurrency, lambda outcome, handshakes, hold: open_websocket(
            server, outcome, handshakes, hold, echoes, marker))
    served = len(outcome.first_event)
    # The served ones must still be undisturbed: free one slot for the post, then every
    # other served stream gets the message.
    marker[0] = f"after the limit {uuid.uuid4()}"
    hold.set()
    sockets = [socket for socket in await asyncio.gather(*tasks) if socket is not None]
    if sockets:
        await sockets.pop().close()
    echoes.clear()
    listeners = [asyncio.create_task(wait_for_marker(socket, marker[0], echoes)) for socket in sockets]
    await asyncio.sleep(0.2)
    await server.post_message(marker[0])
    await asyncio.wait(listeners, timeout=60)
    undisturbed = len(echoes)
    problems = []
    if served != limit:
        problems.append(f"served {served}, not the limit {limit}")
    if outcome.refused != count - limit:
        problems.append(f"refused {outcome.refused}, not {count - limit}")
    if outcome.refused_without_retry_after:
        problems.append(f"{outcome.refused_without_retry_after} refusals without Retry-After")
    if undisturbed != len(sockets):
        problems.append(f"only {undisturbed} of {len(sockets)} served streams got the next message")
    print(
        f"load limit: {count} connections against the limit {limit}: {served} served, {outcome.refused} answered 503"
        f" ({outcome.refused - outcome.refused_without_retry_after} with Retry-After), other: {describe(outcome.errors)};"
        f" {undisturbed} of {len(sockets)} served streams got the next message; all answered in {opened:.1f} s",
        flush=True,
    )
    await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
    return problems + [f"{kind}: {n}" for kind, n in outcome.errors.items()]


async def wait_for_marker(socket, marker, echoes):
    try:
        while True:
            frame = await socket.recv()
            if marker in frame:
                echoes.append(time.perf_counter())
                return
    except Exception:
        return


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--pid", type=int, default=0, help="the server's process id, for its resident memory")
    parser.add_argument("--clients", type=int, default=1000, help="WebSocket clients and SSE followers (each)")
    parser.add_argument("--limit-connections", type=int, default=5000)
    parser.add_argument("--limit", type=int, default=4096, help="the server's --max-connections")
    parser.add_argument("--concurrency", type=int, default=200, help="handshakes in flight at once")
    parser.add_argument("--chat", default="desk-1/proj-app/sess-42", help="desktop/project/session to follow")
    arguments = parser.parse_args()
    server = Server(arguments.host, arguments.port, arguments.token)
    chat = arguments.chat.split("/")
    failures = []

    idle_rss = rss_kib(arguments.pid) if arguments.pid else 0
    await server.post_message("load: the message every new stream replays first")
    websocket = await phase_websocket(server, arguments.clients, arguments.concurrency, arguments.pid, idle_rss)
    failures += [f"websocket {kind}: {n}" for kind, n in websocket.errors.items()]
    await asyncio.sleep(1)
    idle_rss = rss_kib(arguments.pid) if arguments.pid else 0
    sse = await phase_sse(server, arguments.clients, arguments.concurrency, chat, arguments.pid, idle_rss)
    failures += [f"sse {kind}: {n}" for kind, n in sse.errors.items()]
    await asyncio.sleep(1)
    if arguments.limit_connections > 0:
        failures += [
            f"limit: {problem}"
            for problem in await phase_limit(server, arguments.limit_connections, arguments.limit, arguments.concurrency)
        ]
    if failures:
        print("load: FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    print("load: every phase held", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""The baseline for `scripts/bench-server`: a minimal aiohttp server doing the same work as
`sybil serve` on the benchmarked routes. /healthz answers {"status":"ok"}; /agent/read checks
the bearer token in constant time and runs the same two SQLite queries for the read state;
/v1/workspaces/events holds an event stream with a heartbeat and the current overlay."""

import argparse
import asyncio
import hmac
import json
import sqlite3

from aiohttp import web

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--token", default="bench-token")
args = parser.parse_args()
expected = f"Bearer {args.token}".encode()

db = sqlite3.connect(":memory:")
db.executescript(
    """
    CREATE TABLE agent_messages (sequence INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT, visibility TEXT);
    CREATE TABLE agent_read (id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL);
    """
)


def authorized(request):
    return hmac.compare_digest(request.headers.get("Authorization", "").encode(), expected)


def unauthorized():
    body = {"error": {"message": "A valid bearer token is required.", "type": "authentication_error", "code": "unauthorized"}}
    return web.json_response(body, status=401)


async def healthz(request):
    return web.json_response({"status": "ok"})


async def read(request):
    if not authorized(request):
        return unauthorized()
    row = db.execute("SELECT sequence FROM agent_read WHERE id = 1").fetchone()
    sequence = row[0] if row else 0
    unread = db.execute(
        "SELECT COUNT(*) FROM agent_messages WHERE sequence > ? AND role = 'assistant' AND visibility = 'public'",
        (sequence,),
    ).fetchone()[0]
    return web.json_response({"readCursor": None, "unread": unread})


async def events(request):
    if not authorized(request):
        return unauthorized()
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    overlay = json.dumps({"settlementEpoch": 1, "revision": 0, "blocks": []})
    await response.write(f": heartbeat\n\nid: 1\nevent: overlay\ndata: {overlay}\n\n".encode())
    try:
        while True:
            await asyncio.sleep(15)
            await response.write(b": heartbeat\n\n")
    except (asyncio.CancelledError, ConnectionResetError):
        pass
    return response


async def main():
    app = web.Application()
    app.add_routes([web.get("/healthz", healthz), web.get("/agent/read", read), web.get("/v1/workspaces/events", events)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port, backlog=4096)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    await asyncio.Event().wait()


asyncio.run(main())

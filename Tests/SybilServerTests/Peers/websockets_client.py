"""An independent WebSocket client (the `websockets` library) against `sybil serve`:
echo at every payload-length boundary, fragmented and UTF-8 text, ping/pong, the closing
handshake, 1009 for an oversized message, 1007 for invalid UTF-8, and the Agent stream's
replay. Usage: websockets_client.py BASE_WS_URL TOKEN. Prints "ok" and exits 0 when all hold."""

import asyncio
import json
import os
import sys

import websockets
from websockets.frames import Frame, Opcode

base, token = sys.argv[1], sys.argv[2]


async def closed_by_server(ws):
    """The close code the server sent, once it closed the connection."""
    try:
        await ws.recv()
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None
    raise AssertionError("the server echoed instead of closing")


async def main():
    async with websockets.connect(f"{base}/debug/ws-echo", max_size=32 << 20) as ws:
        for size in [0, 1, 125, 126, 127, 65535, 65536, 1 << 20, 16 << 20]:
            data = os.urandom(size)
            await ws.send(data)
            assert await ws.recv() == data, f"binary echo of {size} bytes"
        await ws.send("Grüße 🎉")
        assert await ws.recv() == "Grüße 🎉", "text echo"
        await ws.send(["part one, ", "part two"])
        assert await ws.recv() == "part one, part two", "fragmented echo"
        await (await ws.ping(b"are you there"))
    assert ws.close_code == 1000, f"normal close, got {ws.close_code}"

    # The server ends these connections itself; closing again from here would only race it.
    ws = await websockets.connect(f"{base}/debug/ws-echo", max_size=64 << 20)
    await ws.send(os.urandom((16 << 20) + 1))
    assert await closed_by_server(ws) == 1009, "1009 expected for a message over 16 MiB"

    ws = await websockets.connect(f"{base}/debug/ws-echo")
    # Below the library's API: a text frame whose payload is not UTF-8.
    ws.protocol.send_frame(Frame(Opcode.TEXT, b"\xff\xfe"))
    ws.send_data()
    assert await closed_by_server(ws) == 1007, "1007 expected for invalid UTF-8"

    headers = {"Authorization": f"Bearer {token}"}
    async with websockets.connect(f"{base}/agent/stream", additional_headers=headers) as ws:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "message" and frame["message"]["requestId"] == "peer-1", frame

    try:
        async with websockets.connect(f"{base}/agent/stream", additional_headers={"Authorization": "Bearer no"}):
            raise AssertionError("a wrong token was accepted")
    except websockets.InvalidStatus as refused:
        assert refused.response.status_code == 401, refused

    print("ok")


asyncio.run(main())

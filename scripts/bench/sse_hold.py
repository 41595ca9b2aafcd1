"""Opens N concurrent event streams to one server and holds them: prints how many delivered
their first event, how long opening all of them took, and the server's resident memory
before and after (from /proc). Used by `scripts/bench-server`."""

import argparse
import asyncio
import json
import time
import urllib.parse

from procstatus import rss_kib

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("--count", type=int, default=1000)
parser.add_argument("--token", default="bench-token")
parser.add_argument("--pid", type=int, required=True)
parser.add_argument("--hold", type=float, default=3.0)
args = parser.parse_args()


async def open_stream(url, opened):
    parts = urllib.parse.urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    target = parts.path + ("?" + parts.query if parts.query else "")
    writer.write(
        f"GET {target} HTTP/1.1\r\nHost: {parts.hostname}\r\nAuthorization: Bearer {args.token}\r\n"
        f"Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    data = b""
    while b"event: overlay" not in data:
        chunk = await asyncio.wait_for(reader.read(4096), timeout=30)
        if not chunk:
            raise ConnectionError("closed before the first event")
        data += chunk
    opened.append(1)
    return reader, writer


async def main():
    before = rss_kib(args.pid)
    opened = []
    start = time.perf_counter()
    semaphore = asyncio.Semaphore(200)

    async def guarded():
        async with semaphore:
            return await open_stream(args.url, opened)

    results = await asyncio.gather(*(guarded() for _ in range(args.count)), return_exceptions=True)
    elapsed = time.perf_counter() - start
    streams = [result for result in results if not isinstance(result, BaseException)]
    await asyncio.sleep(args.hold)
    during = rss_kib(args.pid)
    alive = 0
    for reader, writer in streams:
        if not reader.at_eof():
            alive += 1
        writer.close()
    errors = sorted({type(result).__name__ for result in results if isinstance(result, BaseException)})
    print(json.dumps({"held": alive, "asked": args.count, "openSeconds": round(elapsed, 3),
                      "rssBeforeKiB": before, "rssHoldingKiB": during, "errors": errors}))


asyncio.run(main())

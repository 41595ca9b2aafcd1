#!/usr/bin/env python3
"""Peak resident memory of `sybil serve` while clients upload at once (BENCHMARKS.md,
"Reference server: uploads' peak memory").

Starts SYBIL (a built `sybil` binary) with `serve --port 0` on a fresh data directory (or
`--in-memory`), waits for it, then runs one case:

- `agent`: K clients each POST a multipart Agent-room upload of SIZE bytes (default the
  8 MiB file limit). Every client sends all but the last 64 KiB, all wait for each other,
  then all send the rest: K bodies are in flight at once, as with K slow clients.
- `workspace`: K clients each upload SIZE bytes through the desktop's chunked RPC
  (begin, 1 MiB chunks in base64, finish); all finish at once.

Prints the server's resident memory before (VmRSS) and its peak (VmHWM), in MiB, and the
growth between them. Usage:

    scripts/bench/upload_memory.py SYBIL agent|workspace [--clients K] [--size BYTES] [--in-memory]
"""

import argparse
import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

TOKEN = "memory-token"


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def connect(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=600)


def agent_client(port, index, size, barrier, failures):
    boundary = "sybil-memory-boundary"
    payload = bytes((index * 7 + i) % 251 for i in range(4096)) * (size // 4096) + b"x" * (size % 4096)
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"uploadId\"\r\n\r\nmem-{index}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f{index}.bin\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    body = head + payload + tail
    connection = connect(port)
    connection.putrequest("POST", "/agent/uploads")
    connection.putheader("Authorization", f"Bearer {TOKEN}")
    connection.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders()
    split = len(body) - (64 << 10)
    connection.send(body[:split])
    barrier.wait()
    connection.send(body[split:])
    response = connection.getresponse()
    answer = response.read()
    if response.status not in (200, 201):
        failures.append(f"client {index}: {response.status} {answer[:200]!r}")


def rpc(connection, method, call_key, params):
    body = json.dumps({"method": method, "callKey": call_key, "params": params}).encode()
    connection.request(
        "POST", "/v1/workspaces/rpc", body,
        {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    if response.status != 200:
        raise RuntimeError(f"{call_key}: {response.status} {answer[:200]!r}")
    return json.loads(answer)["result"]


def workspace_client(port, index, size, barrier, failures):
    try:
        connection = connect(port)
        key = f"files.chatAttachmentUpload:sess-42:{index:016x}"
        chat = {"desktopId": "desk-1", "projectId": "proj-app", "sessionId": "sess-42"}
        begun = rpc(connection, "files.chatAttachmentUpload", key + ":begin", {
            **chat, "fileName": f"f{index}.bin", "mimeType": "application/octet-stream",
            "path": f"/tmp/f{index}.bin", "size": size})
        upload_id, chunk_size = begun["uploadId"], begun["chunkSize"]
        count = (size + chunk_size - 1) // chunk_size
        for chunk in range(count):
            length = min(chunk_size, size - chunk * chunk_size)
            data = bytes(((chunk + index + i) % 251) for i in range(256)) * (length // 256) + b"y" * (length % 256)
            rpc(connection, "files.chatAttachmentUpload", f"{key}:chunk:{chunk}", {
                "uploadId": upload_id, "index": chunk, "data": base64.b64encode(data).decode()})
        barrier.wait()
        rpc(connection, "files.chatAttachmentUpload", key + ":finish", {"uploadId": upload_id, "chunkCount": count})
    except Exception as error:  # noqa: BLE001 - reported with the figure
        failures.append(f"client {index}: {error}")
        barrier.abort()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sybil")
    parser.add_argument("case", choices=["agent", "workspace"])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--size", type=int)
    parser.add_argument("--in-memory", action="store_true")
    arguments = parser.parse_args()
    size = arguments.size or (8 << 20 if arguments.case == "agent" else 64 << 20)
    data = tempfile.mkdtemp(prefix="sybil-upload-memory-")
    storage = ["--in-memory"] if arguments.in_memory else ["--data-dir", data]
    server = subprocess.Popen(
        [arguments.sybil, "serve", "--port", "0", "--token", TOKEN, "--pace", "0", *storage],
        stdout=subprocess.PIPE, text=True)
    try:
        port = None
        for line in server.stdout:
            if "127.0.0.1:" in line:
                port = int(line.split("127.0.0.1:")[1].split()[0].strip("/"))
                break
        if port is None:
            raise RuntimeError("the server printed no address")
        warm = connect(port)
        warm.request("GET", "/healthz")
        warm.getresponse().read()
        before = status_kib(server.pid, "VmRSS")
        barrier = threading.Barrier(arguments.clients)
        failures = []
        client = agent_client if arguments.case == "agent" else workspace_client
        threads = [
            threading.Thread(target=client, args=(port, index, size, barrier, failures))
            for index in range(arguments.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        peak = status_kib(server.pid, "VmHWM")
        for failure in failures:
            print(failure, file=sys.stderr)
        print(
            f"{arguments.case}: {arguments.clients} clients x {size / (1 << 20):.1f} MiB"
            f" ({'in memory' if arguments.in_memory else 'on disk'}): RSS before {before / 1024:.1f} MiB,"
            f" peak {peak / 1024:.1f} MiB, growth {(peak - before) / 1024:.1f} MiB")
        return 1 if failures else 0
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

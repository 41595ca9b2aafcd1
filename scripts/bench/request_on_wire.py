"""Start-up: time from process start to the first byte of its first request on the wire, for
each command given, alternating runs: usage: request_on_wire.py PORT RUNS COMMAND...

Each COMMAND is its arguments joined by \\x1f. A loopback listener on PORT (the commands
point at http://127.0.0.1:PORT) notes when the first byte of a connection arrives, answers
every request as an OpenAI-compatible server would (a model list, or a one-chunk event
stream), and the command runs to its end. Prints the median and p90 in milliseconds."""
import json
import socket
import statistics
import subprocess
import sys
import threading
import time

CHUNK = json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"},
                                 "finish_reason": "stop"}]})
STREAM = f"data: {CHUNK}\n\ndata: [DONE]\n\n".encode()
MODELS = json.dumps({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "bench"}]}).encode()


class Listener:
    def __init__(self, port):
        self.server = socket.create_server(("127.0.0.1", port), backlog=64)
        self.first = None
        self.lock = threading.Lock()
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            connection, _ = self.server.accept()
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection):
        with connection:
            buffer = b""
            while True:
                data = connection.recv(65536)
                if not data:
                    return
                with self.lock:
                    if self.first is None:
                        self.first = time.monotonic()
                buffer += data
                while b"\r\n\r\n" in buffer:
                    head, _, rest = buffer.partition(b"\r\n\r\n")
                    length = 0
                    for line in head.split(b"\r\n")[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value.strip())
                    while len(rest) < length:
                        more = connection.recv(65536)
                        if not more:
                            return
                        rest += more
                    buffer = rest[length:]
                    if head.split(b" ")[0] == b"GET":
                        body, kind = MODELS, b"application/json"
                    else:
                        body, kind = STREAM, b"text/event-stream"
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\nContent-Length: "
                                       + str(len(body)).encode() + b"\r\n\r\n" + body)

    def run(self, command):
        with self.lock:
            self.first = None
        start = time.monotonic()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                       timeout=60)
        with self.lock:
            if self.first is None:
                sys.exit(f"request_on_wire: {' '.join(command)} sent no request")
            return (self.first - start) * 1000


def main():
    port, runs = int(sys.argv[1]), int(sys.argv[2])
    commands = [arguments.split("\x1f") for arguments in sys.argv[3:]]
    listener = Listener(port)
    results = {index: [] for index in range(len(commands))}
    for command in commands:
        listener.run(command)
    for _ in range(runs):
        for index, command in enumerate(commands):
            results[index].append(listener.run(command))
    medians = []
    for index, command in enumerate(commands):
        values = sorted(results[index])
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        medians.append(statistics.median(values))
        ratio = f", {medians[-1] / medians[0]:.1f}x the first" if index else ""
        print(f"{' '.join(command[:2])}: request on the wire after median {medians[-1]:.1f} ms, "
              f"p90 {p90:.1f} ms ({runs} runs{ratio})")


main()

"""A TLS WebSocket peer for the client's wss: test, written only with Python's standard
library so that it shares no code with the client it checks. It prints its port, then for each
connection: completes the TLS and WebSocket handshakes, echoes one message, and closes with
1000. A client that rejects the certificate just ends that connection."""
import base64
import hashlib
import socket
import ssl
import struct
import sys

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_frame(conn, buffer):
    while len(buffer) < 2:
        buffer += conn.recv(65536)
    first, second = buffer[0], buffer[1]
    length, offset = second & 0x7F, 2
    if length == 126:
        while len(buffer) < 4:
            buffer += conn.recv(65536)
        length, offset = struct.unpack(">H", buffer[2:4])[0], 4
    elif length == 127:
        while len(buffer) < 10:
            buffer += conn.recv(65536)
        length, offset = struct.unpack(">Q", buffer[2:10])[0], 10
    while len(buffer) < offset + 4 + length:
        buffer += conn.recv(65536)
    mask = buffer[offset:offset + 4]
    data = buffer[offset + 4:offset + 4 + length]
    payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))
    return first & 0x0F, payload, buffer[offset + 4 + length:]


def serve(certificate, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    print(listener.getsockname()[1], flush=True)
    while True:
        raw, _ = listener.accept()
        try:
            conn = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            continue
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            head, rest = data.split(b"\r\n\r\n", 1)
            key_value = [line.split(":", 1)[1].strip() for line in head.decode().split("\r\n")
                         if line.lower().startswith("sec-websocket-key:")][0]
            accept = base64.b64encode(hashlib.sha1((key_value + GUID).encode()).digest()).decode()
            conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
            opcode, payload, rest = read_frame(conn, rest)
            conn.sendall(bytes([0x80 | opcode, len(payload)]) + payload)
            conn.sendall(bytes([0x88, 0x02, 0x03, 0xE8]))
            read_frame(conn, rest)
        except (OSError, IndexError, ssl.SSLError):
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])

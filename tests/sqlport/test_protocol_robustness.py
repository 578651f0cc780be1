"""The SQL port's protocol edges over a raw socket: truncated, oversized, out-of-order and
garbage messages get an ErrorResponse (08P01) and close that connection only, never the server;
SSLRequest and GSSENCRequest answers; a connection that just drops. After each, a real client
still connects and queries.
"""
from __future__ import annotations

import socket
import struct

import psycopg

from conftest import token_for


def raw(server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.sql_port), timeout=10)
    return sock


def startup(sock, role="admin"):
    body = struct.pack("!i", 196608)
    for key, value in (("user", "analyst"), ("database", "strata")):
        body += key.encode() + b"\0" + value.encode() + b"\0"
    body += b"\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    assert sock.recv(1) == b"R"
    length = struct.unpack("!i", sock.recv(4))[0]
    assert struct.unpack("!i", sock.recv(length - 4))[0] == 3  # cleartext password
    password = token_for(role).encode() + b"\0"
    sock.sendall(b"p" + struct.pack("!i", len(password) + 4) + password)
    read_until_ready(sock)


def read_messages(sock, stop=b"Z"):
    messages = []
    buffer = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return messages
        buffer += chunk
        while len(buffer) >= 5:
            kind = buffer[:1]
            length = struct.unpack("!i", buffer[1:5])[0]
            if len(buffer) < 1 + length:
                break
            messages.append((kind, buffer[5:1 + length]))
            buffer = buffer[1 + length:]
            if kind == stop or (kind == b"E" and b"FATAL" in messages[-1][1]):
                return messages


def read_until_ready(sock):
    messages = read_messages(sock)
    assert messages and messages[-1][0] == b"Z", messages
    return messages


def sqlstate(message_body: bytes) -> str:
    for field in message_body.split(b"\0"):
        if field.startswith(b"C"):
            return field[1:].decode()
    return ""


def still_serves(server):
    with psycopg.connect(host="127.0.0.1", port=server.sql_port, user="analyst",
                         password=token_for(), sslmode="disable", autocommit=True) as connection:
        assert connection.execute('SELECT COUNT(*) FROM strata."Order"').fetchone() == (600,)


def test_ssl_and_gssenc_requests_are_answered(server):
    with raw(server) as sock:
        sock.sendall(struct.pack("!ii", 8, 80877104))  # GSSENCRequest
        assert sock.recv(1) == b"N"
        sock.sendall(struct.pack("!ii", 8, 80877103))  # SSLRequest: this port has TLS
        assert sock.recv(1) == b"S"
    still_serves(server)


def test_oversized_startup_and_message_lengths_close_the_connection(server):
    with raw(server) as sock:
        sock.sendall(struct.pack("!i", 1 << 30))
        messages = read_messages(sock)
        assert messages and sqlstate(messages[-1][1]) == "08P01"
    with raw(server) as sock:
        startup(sock)
        sock.sendall(b"Q" + struct.pack("!i", 0x7fffffff))
        messages = read_messages(sock)
        assert messages and sqlstate(messages[-1][1]) == "08P01"
    still_serves(server)


def test_truncated_and_malformed_messages(server):
    parse = b"\0SELECT 1\0" + struct.pack("!h", 0)
    parse_message = b"P" + struct.pack("!i", len(parse) + 4) + parse
    for payload in (
        parse_message + b"B" + struct.pack("!i", 6) + b"\0\0",  # Bind without its counts
        b"P" + struct.pack("!i", 5) + b"x",             # Parse without NULs
        b"D" + struct.pack("!i", 5) + b"Z",             # Describe without a name
        b"E" + struct.pack("!i", 6) + b"\0\0",          # Execute without max_rows
        b"\x01" + struct.pack("!i", 4),                 # an unknown message type
    ):
        with raw(server) as sock:
            startup(sock)
            sock.sendall(payload)
            messages = read_messages(sock)
            assert messages and messages[-1][0] == b"E", payload
            assert sqlstate(messages[-1][1]) == "08P01", (payload, messages)
    still_serves(server)


def test_out_of_order_messages_skip_to_sync(server):
    with raw(server) as sock:
        startup(sock)
        # Bind to a statement never parsed, then Execute, then Sync: one error, then ready.
        bind = b"\0missing\0" + struct.pack("!hhh", 0, 0, 0)
        sock.sendall(b"B" + struct.pack("!i", len(bind) + 4) + bind)
        execute = b"\0" + struct.pack("!i", 0)
        sock.sendall(b"E" + struct.pack("!i", len(execute) + 4) + execute)
        sock.sendall(b"S" + struct.pack("!i", 4))
        messages = read_until_ready(sock)
        kinds = [kind for kind, _ in messages]
        assert kinds == [b"E", b"Z"], messages
        # The connection still answers.
        query = b"SELECT 1\0"
        sock.sendall(b"Q" + struct.pack("!i", len(query) + 4) + query)
        kinds = [kind for kind, _ in read_until_ready(sock)]
        assert kinds == [b"T", b"D", b"C", b"Z"]
    still_serves(server)


def test_dropped_connections_do_not_hurt(server):
    for _ in range(50):
        with raw(server) as sock:
            sock.sendall(struct.pack("!i", 100) + b"\0\3")  # a startup cut short
    for _ in range(20):
        with raw(server) as sock:
            startup(sock)
            sock.sendall(b"Q" + struct.pack("!i", 100) + b"SELECT")  # a query cut short
    still_serves(server)

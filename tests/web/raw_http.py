"""A raw HTTP/1.1 request on loopback whose body is sent from a thread while
the answer is read, so a server that answers before the body ends (and then
closes) is seen answering, not as a failed upload."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable

#: a hang guard for the socket, not a timing assertion
HANG_GUARD_SECONDS = 60.0


def chunked(size: int, piece: int) -> Iterable[bytes]:
    """``size`` bytes as chunked transfer coding (no terminating chunk unless all were sent)."""
    data = b"x" * piece
    left = size
    while left > 0:
        part = data[: min(piece, left)]
        left -= len(part)
        yield b"%x\r\n" % len(part) + part + b"\r\n"
    yield b"0\r\n\r\n"


def post(port: int, path: str, headers: dict[str, str], body: Iterable[bytes]) -> tuple[int | None, bytes, int]:
    """The answer's status (``None``: no answer), its bytes, and how many body bytes were sent."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_SECONDS)
    head = f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    sent = 0

    def send_body() -> None:
        nonlocal sent
        try:
            sock.sendall(head.encode("latin-1"))
            for part in body:
                sock.sendall(part)
                sent += len(part)
        except OSError:
            pass  # the server closed: it stopped reading

    sender = threading.Thread(target=send_body, daemon=True)
    sender.start()
    answer = b""
    try:
        while b"\r\n\r\n" not in answer:
            part = sock.recv(65536)
            if not part:
                break
            answer += part
    except OSError:
        pass
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes a sender blocked in sendall
        except OSError:
            pass
        sender.join(HANG_GUARD_SECONDS)
        sock.close()
    status = int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else None
    return status, answer, sent

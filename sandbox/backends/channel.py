"""Host side of the supervisor protocol (`images/supervisor.py`): requests out, responses matched by id.

The connection is the container's attach stream: requests are written to the supervisor's stdin,
responses arrive on its stdout, multiplexed with its stderr in Docker's 8-byte-header frames.
A dedicated thread reads it (a blocking socket of docker-py's making: unix, TCP, TLS or SSH) and
hands complete responses to the event loop; several requests may be in flight at once.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import struct
import threading
from collections import deque
from contextlib import suppress
from typing import Any

from docker.utils.socket import read as socket_read

from sandbox.errors import WorkspaceError, WorkspaceRefused

_HEADER = struct.Struct(">BxxxL")
_STDOUT, _STDERR = 1, 2


class SupervisorChannel:
    """Requests to one container's supervisor over its attach socket."""

    def __init__(self, sock: Any, name: str) -> None:
        self._sock = sock
        self._raw: Any = getattr(sock, "_sock", sock)  # SocketIO wraps the socket on unix
        self.name = name
        self._loop = asyncio.get_running_loop()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {0: self._loop.create_future()}
        self._send_lock = threading.Lock()
        self._stderr: deque[bytes] = deque(maxlen=64)
        self.closed_reason: str | None = None
        self._reader = threading.Thread(
            target=self._read_loop, name=f"parforge-{name}", daemon=True
        )
        self._reader.start()

    async def hello(self, wait_s: float) -> dict[str, Any]:
        """Wait for the supervisor's greeting (it sends one as it starts)."""
        return await self._wait(0, wait_s)

    async def request(self, message: dict[str, Any], wait_s: float | None = None) -> dict[str, Any]:
        """Send one request and wait for its response.

        Raises `WorkspaceError` when the supervisor refuses the request or the connection is gone,
        and `TimeoutError` (for the caller's watchdog) when no response came within `wait_s`.
        """
        if self.closed_reason is not None:
            raise WorkspaceError(f"sandbox container {self.name} is gone: {self.closed_reason}")
        rid = next(self._ids)
        self._pending[rid] = self._loop.create_future()
        data = json.dumps({**message, "id": rid}, separators=(",", ":")).encode() + b"\n"
        try:
            await asyncio.to_thread(self._send, data)
        except OSError as exc:
            self._pending.pop(rid, None)
            raise WorkspaceError(f"cannot reach the supervisor of {self.name}: {exc}") from exc
        return await self._wait(rid, wait_s)

    def stderr_tail(self) -> str:
        """The supervisor's last diagnostics, for error messages."""
        return b"".join(self._stderr).decode(errors="replace")[-2000:]

    def close(self) -> None:
        """Drop the connection; the reader thread ends and pending requests fail."""
        with suppress(OSError, AttributeError):
            self._raw.shutdown(socket.SHUT_RDWR)
        with suppress(OSError):
            self._sock.close()

    async def _wait(self, rid: int, wait_s: float | None) -> dict[str, Any]:
        try:
            response = await asyncio.wait_for(self._pending[rid], wait_s)
        finally:
            self._pending.pop(rid, None)
        if not response.get("ok"):
            raise WorkspaceRefused(f"sandbox supervisor refused a request: {response.get('error')}")
        return response

    def _send(self, data: bytes) -> None:
        with self._send_lock:
            self._raw.sendall(data)

    def _read_loop(self) -> None:
        reason = "the connection closed"
        lines = bytearray()
        try:
            while (frame := self._frame()) is not None:
                stream, payload = frame
                if stream == _STDERR:
                    self._stderr.append(payload)
                    continue
                lines += payload
                while (end := lines.find(b"\n")) >= 0:
                    message = json.loads(lines[:end])
                    del lines[: end + 1]
                    self._deliver(self._resolve, message)
        except (OSError, ValueError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
        tail = self.stderr_tail().strip()
        self._deliver(self._fail_all, f"{reason}{'; supervisor said: ' + tail if tail else ''}")

    def _frame(self) -> tuple[int, bytes] | None:
        header = self._exactly(_HEADER.size)
        if header is None:
            return None
        stream, size = _HEADER.unpack(header)
        payload = self._exactly(size)
        return None if payload is None else (stream, payload)

    def _exactly(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = socket_read(self._sock, n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _deliver(self, callback: Any, arg: Any) -> None:
        with suppress(RuntimeError):  # a closed event loop: nobody is waiting any more
            self._loop.call_soon_threadsafe(callback, arg)

    def _resolve(self, message: dict[str, Any]) -> None:
        future = self._pending.get(int(message.get("id", -1)))
        if future is not None and not future.done():
            future.set_result(message)

    def _fail_all(self, reason: str) -> None:
        self.closed_reason = reason
        for rid, future in list(self._pending.items()):
            if not future.done():
                future.set_exception(
                    WorkspaceError(f"sandbox container {self.name} is gone: {reason}")
                )
            self._pending.pop(rid, None)

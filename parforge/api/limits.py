"""Limits on what a request may carry and on what one API key may have at once.

Enforced before any route sees it: a cap on the body (checked before the body is read into
memory) and no NUL characters in the path or query (PostgreSQL text cannot hold them, so they
would otherwise surface as a 5xx deep in a query). Kept here, applied by the routes: the event
streams open per key. The other per-key limits (jobs queued or running, samples and tests per
task) are decided in `parforge.app.limits`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from parforge.api.problems import MEDIA_TYPE, problem_body
from parforge.app.limits import Refusal

PAGE_MAX = 500
"""The most candidates or eval results one response carries."""


@dataclass
class StreamSlot:
    """One open event stream of a key; `release` may be called more than once."""

    slots: StreamSlots
    owner: int
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.slots._release(self.owner)


@dataclass
class StreamSlots:
    """Event streams open at once per key, in this process."""

    open: dict[int, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire(self, owner: int, limit: int) -> StreamSlot | Refusal:
        with self._lock:
            count = self.open.get(owner, 0)
            if count >= limit:
                return Refusal(
                    429,
                    f"this API key has {count} event streams open; the limit is {limit}",
                    retry_after_s=5,
                )
            self.open[owner] = count + 1
        return StreamSlot(self, owner)

    def _release(self, owner: int) -> None:
        with self._lock:
            left = self.open.get(owner, 0) - 1
            if left > 0:
                self.open[owner] = left
            else:
                self.open.pop(owner, None)


class _TooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """413 for a body over `max_bytes`, declared (Content-Length) or streamed (chunked)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._reject(send)
            return
        seen = 0
        too_large = replied = app_started = False

        async def limited_receive() -> Message:
            nonlocal seen, too_large
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    too_large = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal replied, app_started
            # The app may turn our exception into its own error (FastAPI answers 400 for any
            # failure while reading a body): replace that answer with the 413 it stands for.
            if too_large and not app_started:
                if not replied:
                    replied = True
                    await self._reject(send)
                return
            if message["type"] == "http.response.start":
                replied = app_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLarge:
            if not replied:
                await self._reject(send)

    async def _reject(self, send: Send) -> None:
        await _reply(send, 413, f"request body is larger than the limit of {self.max_bytes} bytes")


class NoNulMiddleware:
    """400 for a request whose path or query string contains a NUL character."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("raw_path") or scope["path"].encode()
            if b"\0" in unquote_to_bytes(raw) + unquote_to_bytes(scope.get("query_string", b"")):
                await _reply(send, 400, "NUL characters are not allowed in the path or query")
                return
        await self.app(scope, receive, send)


async def _reply(send: Send, status: int, detail: str) -> None:
    body = problem_body(status, detail)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

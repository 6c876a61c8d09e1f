"""Bad endpoints over real sockets: each fails with a clear error within its time-out."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from agents.llm import (
    ChatRequest,
    LLMClient,
    LLMConfig,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    Message,
)

REQUEST = ChatRequest(messages=[Message(role="user", content="hi")])
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def tcp_server() -> AsyncIterator[Callable[[Handler], Awaitable[str]]]:
    """Start a raw TCP server with a given handler; returns its base URL."""
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> str:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        servers.append(server)
        return f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"

    yield start
    for server in servers:
        server.close()


async def test_unreachable_url_fails_fast() -> None:
    config = LLMConfig(
        url=f"http://127.0.0.1:{free_port()}/v1", model="m", max_retries=2, backoff_initial_s=0.1
    )
    t0 = time.monotonic()
    async with LLMClient(config) as llm:
        with pytest.raises(LLMUnavailable, match="cannot reach"):
            await llm.chat(REQUEST)
    assert time.monotonic() - t0 < 5


async def test_a_server_that_never_answers_times_out(tcp_server) -> None:  # type: ignore[no-untyped-def]
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        await asyncio.sleep(60)

    url = await tcp_server(silent)
    config = LLMConfig(url=url, model="m", read_timeout_s=1.0, max_retries=0)
    t0 = time.monotonic()
    async with LLMClient(config) as llm:
        with pytest.raises(LLMTimeout):
            await llm.chat(REQUEST)
    assert time.monotonic() - t0 < 5


async def test_a_server_that_dies_mid_stream(tcp_server) -> None:  # type: ignore[no-untyped-def]
    async def dies(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        chunk = b'data: {"choices": [{"index": 0, "delta": {"content": "par"}}]}\n\n'
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n" + f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        )
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.transport.abort()  # no final chunk: the connection just drops

    url = await tcp_server(dies)
    async with LLMClient(LLMConfig(url=url, model="m")) as llm:
        with pytest.raises(LLMStreamError, match="mid-stream"):
            await llm.chat(REQUEST)

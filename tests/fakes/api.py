"""The API in-process: the real app and store, reached through httpx's ASGI transport."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from sqlmodel import Session

from corpus.store import keys, open_store
from corpus.store.config import StoreConfig
from evals.config import EvalConfig
from parforge.settings import ServiceConfig, Settings


class Api:
    def __init__(self, app: FastAPI, client: httpx.AsyncClient, token: str, url: str) -> None:
        self.app = app
        self.client = client
        self.token = token
        self.store_url = url
        self.auth = {"Authorization": f"Bearer {token}"}

    def new_key(self, name: str) -> str:
        engine = open_store(self.store_url)
        with Session(engine) as s:
            token = keys.create(s, name).token
        engine.dispose()
        return token


ApiFactory = Callable[..., AbstractAsyncContextManager[Api]]


def settings_for(
    store_url: str, data_dir: Path, evals: EvalConfig | None = None, **server: Any
) -> Settings:
    # No configured runner unless a test names one: `api_factory(runner=None)` queues only.
    config = {"poll_s": 0.05, "heartbeat_s": 0.05, "runner": "none", **server}
    return Settings(
        data_dir=data_dir,
        store=StoreConfig(url=store_url),
        server=ServiceConfig(**config),
        # No eval workers unless a test asks: a queued eval would otherwise really run.
        evals=evals or EvalConfig(workers=0),
    )


async def wait_done(client, task_id, limit_s=10.0):
    async with asyncio.timeout(limit_s):
        while True:
            task = (await client.get(f"/v1/tasks/{task_id}")).json()
            if task["status"] in ("succeeded", "no_verified_candidate", "failed", "cancelled"):
                return task
            await asyncio.sleep(0.02)

"""The API in-process: the real app and store, reached through httpx's ASGI transport."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlmodel import Session

from corpus.runner import TaskRunner
from corpus.store import keys, open_store
from corpus.store.config import StoreConfig
from evals.config import EvalConfig
from parforge.api import create_app
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


@pytest.fixture
def api_factory(store_url: str, tmp_path: Path) -> ApiFactory:
    @asynccontextmanager
    async def make(runner: TaskRunner | None = None, **server: Any) -> AsyncIterator[Api]:
        settings = settings_for(store_url, tmp_path, **server)
        app = create_app(settings, runner=runner)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                api = Api(app, client, "", store_url)
                api.token = api.new_key("tests")
                api.auth = {"Authorization": f"Bearer {api.token}"}
                client.headers.update(api.auth)
                yield api

    return make

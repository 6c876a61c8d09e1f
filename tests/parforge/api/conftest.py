"""The API fixture: the real app and store in-process (`tests/fakes/api.py` holds the helpers),
with a judge that passes every submission's original unless a test gives its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from agents.judge import Judge
from corpus.runner import TaskRunner
from parforge.api import create_app
from tests.fakes.api import Api, ApiFactory, settings_for
from tests.fakes.judge import judging_originals


@pytest.fixture
def api_factory(store_url: str, tmp_path: Path) -> ApiFactory:
    @asynccontextmanager
    async def make(
        runner: TaskRunner | None = None, judge: Judge | None = None, **server: Any
    ) -> AsyncIterator[Api]:
        settings = settings_for(store_url, tmp_path, **server)
        app = create_app(settings, runner=runner, judge=judge or judging_originals())
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                api = Api(app, client, "", store_url)
                api.token = api.new_key("tests")
                api.auth = {"Authorization": f"Bearer {api.token}"}
                client.headers.update(api.auth)
                yield api

    return make

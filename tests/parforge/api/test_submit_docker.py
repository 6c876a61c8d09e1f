"""Submissions through the real API and the real Docker sandbox (the judge the composition root
builds from the settings): an original that does not build, and one that crashes, are refused
with 422 problem details naming the reason, before anything is stored; a good one is accepted."""

from __future__ import annotations

from pathlib import Path

import httpx
from sqlmodel import Session

from corpus.store import keys, open_store
from parforge.api import create_app
from tests.fakes.api import settings_for

GOOD = """#include <stdio.h>
int main(void) {
    long s = 0;
    for (int i = 0; i < 1000; i++) s += i;
    printf("%ld\\n", s);
    return 0;
}
"""
DOES_NOT_BUILD = "int main(void) { return undeclared_name; }\n"
CRASHES = "#include <stdlib.h>\nint main(void) { abort(); }\n"


async def test_the_original_is_built_and_run_before_a_task_is_accepted(
    sandbox_image: str, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    app = create_app(settings_for(url, tmp_path))  # no runner: accepted tasks stay queued
    async with app.router.lifespan_context(app):
        engine = open_store(url)
        with Session(engine) as session:
            token = keys.create(session, "docker").token
        engine.dispose()
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://test",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        ) as client:
            for source, reason in [
                (DOES_NOT_BUILD, "does not build: main.cpp:1: "),
                (CRASHES, "fails on test 'default': "),
            ]:
                r = await client.post("/v1/tasks", json={"source": source, "target": "openmp"})
                assert r.status_code == 422, r.text
                assert r.headers["content-type"] == "application/problem+json"
                problem = r.json()
                assert problem["status"] == 422 and problem["field"] == "source"
                assert problem["detail"].startswith("the original program ")
                assert reason in problem["detail"], problem
            assert (await client.get("/v1/tasks")).json()["total"] == 0

            r = await client.post("/v1/tasks", json={"source": GOOD, "target": "openmp"})
            assert r.status_code == 202, r.text
            assert r.json()["status"] == "queued"
            assert (await client.get("/v1/tasks")).json()["total"] == 1

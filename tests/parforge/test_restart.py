"""A real `parforge serve` killed with SIGKILL mid-task, then restarted: the task is resumed (or
failed with the reason when it has no attempts left) and every step written before the kill stays."""

from __future__ import annotations

import time

import httpx
import pytest
from sqlmodel import Session, select

from corpus.store import keys, open_store, tasks
from corpus.store.models import StepRow
from tests.fakes.server import Server


def _steps(store_url: str, task_id: str) -> list[tuple[int, int]]:
    engine = open_store(store_url)
    with Session(engine) as s:
        rows = s.exec(select(StepRow.id, StepRow.run_id).where(StepRow.task_id == task_id)).all()
    engine.dispose()
    return sorted((int(a), int(b)) for a, b in rows)


@pytest.mark.slow
@pytest.mark.parametrize("max_attempts", [2, 1], ids=["resumed", "failed"])
def test_sigkill_mid_task_then_restart(store_url, tmp_path, max_attempts):
    engine = open_store(store_url)
    with Session(engine) as s:
        auth = {"Authorization": f"Bearer {keys.create(s, 'restart').token}"}
    engine.dispose()
    server = Server(store_url, tmp_path, max_attempts)
    server.start()
    try:
        r = httpx.post(
            f"{server.url}/v1/tasks",
            json={"source": "int main(void) { return 0; }", "target": "openmp"},
            headers=auth,
        )
        task_id = r.json()["id"]
        # Follow the live event stream until a few steps are in, then kill the server.
        seen = 0
        with httpx.stream(
            "GET", f"{server.url}/v1/tasks/{task_id}/events", headers=auth, timeout=20
        ) as events:
            for line in events.iter_lines():
                if line == "event: step":
                    seen += 1
                    if seen == 5:
                        break
        server.kill()
        before = _steps(store_url, task_id)
        assert len(before) >= 5
        server.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            task = httpx.get(f"{server.url}/v1/tasks/{task_id}", headers=auth).json()
            if task["status"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.1)
        after = _steps(store_url, task_id)
        assert after[: len(before)] == before  # nothing written before the kill was lost
        engine = open_store(store_url)
        with Session(engine) as s:
            runs = tasks.runs(s, task_id)
        engine.dispose()
        assert runs[0].status == "failed" and "stopped" in runs[0].reason
        if max_attempts == 2:
            assert task["status"] == "succeeded", task
            assert task["attempts"] == 2 and len(runs) == 2
            assert len(after) == len(before) + 24  # the second run's 12 samples, 2 steps each
        else:
            assert task["status"] == "failed", task
            assert "stopped answering during attempt 1 of 1; giving up" in task["reason"]
            assert after == before
    finally:
        server.stop()

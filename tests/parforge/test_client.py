"""`parforge.client` against a real `parforge serve` (the scripted runner writes the candidates):
every call the client offers, and errors raised with the server's problem details."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session

from corpus.store import keys, open_store
from parforge.client import ApiError, Client
from tests.fakes.server import Server

SOURCE = (
    "int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }"
    "\nint main(void) { int a[3] = {1, 2, 3}; return sum(a, 3) != 6; }\n"
)
EVAL = {"problems": ["55_transform_relu"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    data = tmp_path_factory.mktemp("served")
    url = f"sqlite:///{data / 'store.db'}"
    engine = open_store(url)
    with Session(engine) as s:
        token = keys.create(s, "client").token
    engine.dispose()
    # No eval workers: a queued eval stays queued (its samples would need a model).
    server = Server(url, data, env={"PARFORGE_EVALS__WORKERS": "0"}, samples=3, delay_s=0.05)
    server.start()
    try:
        yield server, token
    finally:
        server.stop()


def test_a_task_from_submission_to_its_candidates(served):
    server, token = served
    with Client(server.url, token) as api:
        assert api.health()["status"] == "ok"
        accepted = api.submit_task(SOURCE, "openmp", language="c", budgets={"samples": 3})
        assert accepted["status"] == "queued"
        summary = api.wait(accepted["id"])
        assert summary["status"] == "succeeded" and summary["best"] is not None
        assert api.task(accepted["id"])["status"] == "succeeded"
        candidates = list(api.candidates(accepted["id"]))
        assert len(candidates) == 3 and all(c["verdict"] for c in candidates)
        [run] = api.runs(accepted["id"])
        assert run["status"] == "succeeded"
        kinds = [kind for kind, _ in api.task_events(accepted["id"], follow=False)]
        assert kinds[0] == "status" and "candidate" in kinds and "verdict" in kinds
        assert accepted["id"] in [t["id"] for t in api.tasks(status="succeeded")]
        lines = list(api.export("sft", verified_only=False))
        assert lines and all("messages" in line for line in lines)
        with pytest.raises(ApiError) as ended:
            api.cancel_task(accepted["id"])
        assert ended.value.status == 409 and "has already succeeded" in ended.value.detail


def test_every_page_of_a_list_is_read(served):
    server, token = served
    with Client(server.url, token) as api:
        ids = {api.submit_task(SOURCE, "openmp", language="c")["id"] for _ in range(3)}
        # Pages of one: the client walks them all.
        pages = list(api._pages("/v1/tasks", {"limit": 1}))
        assert ids <= {t["id"] for t in pages}
        for task_id in ids:
            api.wait(task_id)


def test_evals_and_errors(served):
    server, token = served
    with Client(server.url, token) as api:
        run = api.submit_eval("pareval", "openmp", **EVAL, options={"temperature": 0.5})
        assert run["status"] == "queued" and run["options"]["sampling"]["temperature"] == 0.5
        assert api.eval(run["id"])["id"] == run["id"]
        assert run["id"] in [r["id"] for r in api.evals()]
        assert list(api.eval_results(run["id"])) == []
        assert api.cancel_eval(run["id"])["status"] == "cancelled"
        kinds = [kind for kind, _ in api.eval_events(run["id"])]
        assert kinds[0] == "status" and kinds[-1] == "summary"

        with pytest.raises(ApiError) as bad:
            api.submit_eval("pareval", "openmp", problems=["nothing_*"])
        assert bad.value.status == 422 and bad.value.field == "problems"
        with pytest.raises(ApiError) as missing:
            api.task("0" * 32)
        assert missing.value.status == 404 and missing.value.problem["title"] == "Not Found"
    with Client(server.url, "pf_not-a-key") as stranger, pytest.raises(ApiError) as refused:
        list(stranger.tasks())
    assert refused.value.status == 401 and "API key" in refused.value.detail

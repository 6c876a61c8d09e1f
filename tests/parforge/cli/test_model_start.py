"""A command that needs the model gets one or says why not, before it stores anything: a server
that answers is used whoever started it; with no endpoint configured the embedded server is
started (unless refused); a configured endpoint that does not answer is one line and exit 3."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from agents.llm import LLMClient
from corpus.store import open_store
from corpus.store.models import TaskRow
from parforge.cli import app
from parforge.cli._model import ModelUnavailable, ensure_model
from parforge.model_server.errors import ServerStartError
from parforge.settings import load_settings
from tests.fakes.llm import FakeLLMServer
from tests.fakes.paths import GRAPH_PROGRAMS


class Launcher:
    """Starts "the server": from then on the fake endpoint answers."""

    def __init__(self, up: list[bool], fails: bool = False) -> None:
        self.up, self.fails, self.starts = up, fails, 0

    async def start(self, *, wait: bool = True, progress: Any = None) -> None:
        self.starts += 1
        if progress is not None:
            progress("starting vLLM (1s)")
        if self.fails:
            raise ServerStartError("vLLM exited while starting: see the log")
        self.up[0] = True


def clients(up: list[bool]):
    """Clients of a fake endpoint that answers only while `up[0]`."""
    fake = FakeLLMServer()

    async def handle(request: httpx2.Request) -> httpx2.Response:
        if not up[0]:
            raise httpx2.ConnectError("All connection attempts failed", request=request)
        return await fake.handle(request)

    return lambda config: LLMClient(config, transport=httpx2.MockTransport(handle))


def settings(monkeypatch, tmp_path, endpoint: str | None = None):
    monkeypatch.setenv("PARFORGE_DATA_DIR", str(tmp_path))
    if endpoint:
        monkeypatch.setenv("PARFORGE_MODEL__ENDPOINT__URL", endpoint)
    return load_settings()


def translate(tmp_path, *extra: str, **settings: str):
    """`parforge translate reduce.c --target openmp` on a store and data dir of its own."""
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": f"sqlite:///{tmp_path / 'store.db'}",
        **{f"PARFORGE_{k.upper()}": v for k, v in settings.items()},
    }
    program = str(GRAPH_PROGRAMS / "reduce.c")
    return CliRunner().invoke(app, ["translate", program, "--target", "openmp", *extra], env=env)


async def test_a_server_that_answers_is_used_and_nothing_starts(monkeypatch, tmp_path):
    up = [True]
    launcher = Launcher(up)
    config = settings(monkeypatch, tmp_path)
    url = await ensure_model(config, start=True, client=clients(up), server=lambda: launcher)
    assert url == config.model.client_config().url and launcher.starts == 0


async def test_with_no_endpoint_configured_the_embedded_server_is_started(monkeypatch, tmp_path):
    up = [False]
    launcher = Launcher(up)
    said: list[str] = []
    config = settings(monkeypatch, tmp_path)
    await ensure_model(
        config, start=True, progress=said.append, client=clients(up), server=lambda: launcher
    )
    assert launcher.starts == 1 and up[0]
    assert said[0].startswith("no model server answers at") and "starting vLLM" in said[1]


async def test_refused_or_failed_starts_and_dead_endpoints_say_what_to_do(monkeypatch, tmp_path):
    up = [False]
    config = settings(monkeypatch, tmp_path)
    launcher = Launcher(up)
    with pytest.raises(ModelUnavailable, match="parforge model serve"):
        await ensure_model(config, start=False, client=clients(up), server=lambda: launcher)
    assert launcher.starts == 0
    broken = Launcher(up, fails=True)
    with pytest.raises(ModelUnavailable, match="did not start: vLLM exited"):
        await ensure_model(config, start=True, client=clients(up), server=lambda: broken)
    # A configured endpoint is someone else's: never started from here.
    config = settings(monkeypatch, tmp_path, endpoint="http://gpu-box.invalid:8000/v1")
    with pytest.raises(ModelUnavailable, match="PARFORGE_MODEL__ENDPOINT__URL") as caught:
        await ensure_model(config, start=True, client=clients(up), server=lambda: launcher)
    assert launcher.starts == 0 and "gpu-box.invalid" in str(caught.value)


def test_translate_without_a_model_exits_3_in_one_line_and_stores_nothing(tmp_path):
    # Nothing listens on the discard port: connection refused at once.
    result = translate(tmp_path, model__endpoint__url="http://127.0.0.1:9/v1")
    assert result.exit_code == 3, result.output
    assert result.stderr.count("error:") == 1 and "Traceback" not in result.output
    assert "does not answer" in result.stderr and result.stdout == ""
    # With no endpoint configured and starting refused: the same, naming `parforge model serve`.
    refused = translate(tmp_path, "--no-start-model", model__server__port="9")
    assert refused.exit_code == 3 and "parforge model serve" in refused.stderr
    engine = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    with Session(engine) as session:
        assert session.exec(select(TaskRow)).all() == []
    engine.dispose()


def test_which_runs_here_need_the_model(monkeypatch, tmp_path):
    from parforge.cli._model import needs_model_here

    config = settings(monkeypatch, tmp_path)
    assert needs_model_here(config, "graph") and needs_model_here(config, "prompt")
    assert not needs_model_here(config, "nope")
    monkeypatch.setenv("PARFORGE_GRAPH__USE_MODEL", "false")  # the analysis alone
    assert not needs_model_here(load_settings(), "graph")
    monkeypatch.setenv("PARFORGE_SERVER__RUNNER", "none")  # a server elsewhere runs it
    assert not needs_model_here(load_settings(), "prompt")


def test_an_eval_run_without_a_model_is_kept_to_resume_and_exits_3(tmp_path):
    env = {
        "PARFORGE_DATA_DIR": str(tmp_path / "data"),
        "PARFORGE_STORE__URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "PARFORGE_SANDBOX__TYPE": "local",
        "PARFORGE_MODEL__ENDPOINT__URL": "http://127.0.0.1:9/v1",
    }
    args = ["eval", "run", "--problems", "03_*", "--no-timing"]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 3, result.output
    assert "does not answer" in result.stderr and "--resume 1" in result.stderr
    # The suite's known-good answers need no model: nothing is asked of the endpoint.
    replay = CliRunner().invoke(app, [*args, "--model", "replay:known-good"], env=env)
    assert replay.exit_code == 0, replay.output


def test_autostart_off_in_the_settings_is_the_default_of_the_commands(tmp_path):
    result = translate(tmp_path, model__server__port="9", model__autostart="false")
    assert result.exit_code == 3 and "parforge model serve" in result.stderr


def test_version():
    from importlib.metadata import version

    shown = CliRunner().invoke(app, ["--version"])
    assert shown.exit_code == 0 and shown.stdout == f"parforge {version('parforge')}\n"


@pytest.mark.docker
def test_a_missing_sandbox_image_is_infrastructure_exit_3(tmp_path):
    result = translate(
        tmp_path, graph__use_model="false", sandbox__image="parforge-sandbox:never-built"
    )
    assert result.exit_code == 3, result.output
    assert "never-built is missing: run `parforge sandbox build`" in result.stderr

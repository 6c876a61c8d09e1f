"""The compose directory `parforge deploy compose` writes, and the tags images are built under."""

from __future__ import annotations

import shutil
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from parforge.deploy.compose import read_env, write_compose
from parforge.deploy.images import CONTEXT_DIR, image_tags

TAGS = {
    "postgres": "parforge-postgres:aaa",
    "service": "parforge-service:bbb",
    "model": "parforge-model:bbb",
}


@pytest.fixture
def docker_sock(tmp_path: Path) -> Iterator[Path]:
    """A real Unix socket standing in for the engine's (only its kind and group are read)."""
    path = tmp_path / "docker.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    yield path
    server.close()


def test_writes_the_project_with_a_private_generated_password(tmp_path, docker_sock):
    out = tmp_path / "deploy"
    written = write_compose(out, TAGS, port=18080, socket=docker_sock)
    assert {p.name for p in written} == {
        "compose.yaml",
        "compose.model.yaml",
        ".env",
        "parforge.env",
    }
    env = read_env(out / ".env")
    assert env["COMPOSE_FILE"] == "compose.yaml:compose.model.yaml"
    assert env["PARFORGE_SERVICE_IMAGE"] == "parforge-service:bbb"
    assert env["PARFORGE_PORT"] == "18080"
    assert env["DOCKER_SOCKET"] == str(docker_sock)
    assert env["DOCKER_GID"] == str(docker_sock.stat().st_gid)
    assert len(env["POSTGRES_PASSWORD"]) >= 24
    for name in (".env", "parforge.env"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600


def test_a_second_write_keeps_the_password_and_the_users_settings(tmp_path, docker_sock):
    out = tmp_path / "deploy"
    write_compose(out, TAGS, socket=docker_sock, settings={"PARFORGE_SERVER__WORKERS": "4"})
    password = read_env(out / ".env")["POSTGRES_PASSWORD"]
    with (out / "parforge.env").open("a") as f:
        f.write("PARFORGE_GRAPH__SAMPLES=3\n")
    newer = {**TAGS, "service": "parforge-service:ccc"}
    write_compose(out, newer, socket=docker_sock, settings={"PARFORGE_SERVER__WORKERS": "1"})
    env = read_env(out / ".env")
    assert env["POSTGRES_PASSWORD"] == password  # the database volume was made with it
    assert env["PARFORGE_SERVICE_IMAGE"] == "parforge-service:ccc"
    settings = read_env(out / "parforge.env")
    assert settings == {"PARFORGE_GRAPH__SAMPLES": "3", "PARFORGE_SERVER__WORKERS": "1"}


def test_without_the_model_server_only_the_base_file_makes_the_project(tmp_path, docker_sock):
    tags = {k: v for k, v in TAGS.items() if k != "model"}
    write_compose(tmp_path, tags, model_server=False, socket=docker_sock)
    assert read_env(tmp_path / ".env")["COMPOSE_FILE"] == "compose.yaml"
    with pytest.raises(ValueError, match="model image"):
        write_compose(tmp_path, tags, model_server=True, socket=docker_sock)


def test_refuses_a_path_that_is_no_socket(tmp_path):
    plain = tmp_path / "docker.sock"
    plain.write_text("")
    with pytest.raises(FileNotFoundError, match="no Docker socket"):
        write_compose(tmp_path / "out", TAGS, socket=plain)
    assert not (tmp_path / "out").exists()


def test_the_service_is_on_loopback_behind_the_socket_warning():
    base = yaml.safe_load((CONTEXT_DIR / "compose.yaml").read_text())
    model = yaml.safe_load((CONTEXT_DIR / "compose.model.yaml").read_text())
    service = base["services"]["service"]
    assert service["ports"] == ["127.0.0.1:${PARFORGE_PORT}:8080"]
    assert "${DOCKER_SOCKET}:/var/run/docker.sock" in service["volumes"]
    assert service["group_add"] == ["${DOCKER_GID}"]
    assert "ports" not in base["services"]["postgres"]  # the database is not published
    assert "ports" not in model["services"]["model"]
    assert model["services"]["service"]["environment"] == {
        "PARFORGE_MODEL__ENDPOINT__URL": "http://model:8000/v1",
        "PARFORGE_MODEL__PAUSE_COMPOSE_SERVICE": "model",  # frozen for each timing run
    }
    assert model["services"]["model"]["shm_size"] == "1gb"  # vLLM's shared-memory queues
    assert "root on this host" in (CONTEXT_DIR / "compose.yaml").read_text()


def _tree(root: Path) -> Path:
    (root / "parforge").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "README.md").write_text("# x\n")
    (root / "parforge" / "a.py").write_text("A = 1\n")
    return root


def test_tags_follow_the_sources_and_the_database_only_its_own_files(tmp_path):
    root = _tree(tmp_path / "src")
    before = image_tags(root)
    (root / "parforge" / "__pycache__").mkdir()
    (root / "parforge" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert image_tags(root) == before  # byte code is not source
    (root / "parforge" / "a.py").write_text("A = 2\n")
    after = image_tags(root)
    assert after["service"] != before["service"] and after["model"] != before["model"]
    assert after["postgres"] == before["postgres"]
    copy = shutil.copytree(root, tmp_path / "elsewhere")
    assert image_tags(Path(copy)) == after  # content, not place
    assert all(tag.split(":")[0] == f"parforge-{name}" for name, tag in after.items())


def test_an_existing_wider_file_is_narrowed_before_the_password_is_written(
    tmp_path: Path, docker_sock: Path
) -> None:
    out = tmp_path / "deploy"
    out.mkdir()
    (out / ".env").write_text("POSTGRES_PASSWORD=old\n")
    (out / ".env").chmod(0o644)
    write_compose(out, TAGS, socket=docker_sock)
    assert stat.S_IMODE((out / ".env").stat().st_mode) == 0o600
    assert read_env(out / ".env")["POSTGRES_PASSWORD"] == "old"


async def test_images_are_refused_from_a_python_the_base_does_not_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from parforge.deploy import images
    from sandbox.errors import ImageBuildError

    monkeypatch.setattr(images, "IMAGE_PYTHON", (3, 99))
    with pytest.raises(ImageBuildError, match=r"Python 3\.99"):
        await images.build_images(None, ("service",), progress=None)  # type: ignore[arg-type]

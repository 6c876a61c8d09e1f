"""Write a compose directory for the service (`parforge deploy compose DIR`).

The directory holds the compose files as shipped (`compose.yaml`: PostgreSQL and the service;
`compose.model.yaml`: the model server, and the service pointed at it), `.env` (what compose
substitutes: image tags, the database password, the port, the Docker socket and its group,
which files make the project) and `parforge.env` (the service's own PARFORGE_* settings).

Writing again (after a new build) updates the tags and keeps what must survive: the database
password (the database volume was initialised with it) and every line of `parforge.env`.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from pathlib import Path

from parforge.deploy.images import CONTEXT_DIR, Image

COMPOSE_FILES = ("compose.yaml", "compose.model.yaml")
DEFAULT_SOCKET = Path("/var/run/docker.sock")

_SETTINGS_HEADER = """\
# ParForge settings for the service container, one PARFORGE_<FIELD>=value per line (nested
# fields with __), as in docs/configuration.md. The compose files set the database URL and,
# with the bundled model server, the model endpoint; everything else is yours, kept when
# `parforge deploy compose` writes this directory again.
"""


def read_env(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of an env file (comments and blank lines skipped)."""
    if not path.is_file():
        return {}
    pairs = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            pairs[key.strip()] = value.strip()
    return pairs


def docker_socket() -> Path:
    """The engine's Unix socket (from DOCKER_HOST when it names one)."""
    host = os.environ.get("DOCKER_HOST", "")
    return Path(host.removeprefix("unix://")) if host.startswith("unix://") else DEFAULT_SOCKET


def write_compose(
    dest: Path,
    tags: dict[Image, str],
    *,
    port: int = 8080,
    model_server: bool = True,
    settings: dict[str, str] | None = None,
    socket: Path | None = None,
) -> list[Path]:
    """Write (or update) the compose directory; return the files written."""
    socket = socket or docker_socket()
    if not socket.exists() or not stat.S_ISSOCK(socket.stat().st_mode):
        raise FileNotFoundError(
            f"no Docker socket at {socket}: the service starts its sandboxes through it"
        )
    if model_server and "model" not in tags:
        raise ValueError("the bundled model server needs the model image (build it, or say no)")
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name in COMPOSE_FILES:
        shutil.copy(CONTEXT_DIR / name, dest / name)
        written.append(dest / name)

    env_file = dest / ".env"
    kept = read_env(env_file)
    env = {
        "COMPOSE_FILE": ":".join(COMPOSE_FILES if model_server else COMPOSE_FILES[:1]),
        "PARFORGE_POSTGRES_IMAGE": tags["postgres"],
        "PARFORGE_SERVICE_IMAGE": tags["service"],
        "PARFORGE_MODEL_IMAGE": tags.get("model", kept.get("PARFORGE_MODEL_IMAGE", "")),
        "PARFORGE_PORT": str(port),
        "POSTGRES_PASSWORD": kept.get("POSTGRES_PASSWORD") or secrets.token_urlsafe(24),
        "DOCKER_SOCKET": str(socket),
        "DOCKER_GID": str(socket.stat().st_gid),
    }
    text = "# Written by `parforge deploy compose`; compose reads it. Keep it private.\n"
    _write_private(env_file, text + "".join(f"{k}={v}\n" for k, v in env.items()))
    written.append(env_file)

    settings_file = dest / "parforge.env"
    lines = settings_file.read_text().splitlines() if settings_file.exists() else []
    lines = lines or _SETTINGS_HEADER.splitlines()
    for key, value in (settings or {}).items():
        lines = [line for line in lines if line.partition("=")[0].strip() != key]
        lines.append(f"{key}={value}")
    _write_private(settings_file, "\n".join(lines) + "\n")
    written.append(settings_file)
    return written


def _write_private(path: Path, text: str) -> None:
    """Owner-only: the files hold the database password and maybe an endpoint's key."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode through os.open: narrow it first
    with os.fdopen(fd, "w") as out:
        out.write(text)

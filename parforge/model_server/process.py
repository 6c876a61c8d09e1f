"""Blocking process helpers: logged set-up commands, the detached server, its pid and state.

Everything here blocks; the launcher calls it through `asyncio.to_thread`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from parforge.model_server.errors import ModelServerError


class ServerState(BaseModel):
    """What `serve` wrote down about the server it started (`server.json` in the data dir)."""

    pid: int
    url: str
    model: str
    """Model path or name given to vLLM."""
    served_model_name: str
    argv: list[str]
    log: Path
    started_at: datetime
    adopted: bool = False
    """Not started here: a healthy server for the same model that another data dir started
    on the configured port, used as it is and never stopped from here."""


def run_logged(
    argv: Sequence[str | Path], log: Path, error: type[ModelServerError], what: str
) -> None:
    """Run a set-up command with its output appended to `log`; raise `error` with the tail."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        out.write(f"\n$ {' '.join(map(str, argv))}\n".encode())
        out.flush()
        code = subprocess.run(
            [str(a) for a in argv], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        ).returncode
    if code != 0:
        raise error(f"{what} failed (exit {code}); last lines of {log}:\n{log_tail(log)}")


def spawn(argv: Sequence[str], env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start the server detached (own session, so it outlives the CLI and stops as a group)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        out.write(f"\n$ {' '.join(argv)}\n".encode())
        out.flush()
        # The child inherits the caller's environment plus the server's own variables.
        return subprocess.Popen(
            list(argv),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **env},
            start_new_session=True,
            close_fds=True,
        )


def alive(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process."""
    with contextlib.suppress(ChildProcessError):
        # Reap it if it is our own child that exited, so it does not linger as a zombie.
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def looks_like_vllm(pid: int) -> bool:
    """Guard against pid reuse: only signal a process whose command line names vLLM."""
    try:
        return b"vllm" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return not Path("/proc").is_dir()  # no procfs: trust the pid file


def resume(pid: int) -> None:
    """Continue the server's process group if a timing run left it stopped (see `pause`)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGCONT)


def group_states(pgid: int) -> list[str]:
    """The scheduler state (`R`, `S`, `T`, ...) of each process of group `pgid`, from /proc."""
    states = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile: nothing left to run
        if int(fields[2]) == pgid:
            states.append(fields[0])
    return states


def wait_stopped(pgid: int, timeout_s: float = 2.0) -> bool:
    """Wait until every process of group `pgid` has taken its SIGSTOP: the signal is delivered
    when each one next runs, so a timing run started at once could still share the cores with
    it. True when the whole group is stopped within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        if all(state in "TtZX" for state in group_states(pgid)):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)


def terminate(pid: int, timeout_s: float) -> None:
    """Stop the server's whole process group: SIGTERM, then SIGKILL after `timeout_s`."""
    for sig, wait in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not alive(pid) and not _group_alive(pid):
                return
            time.sleep(0.2)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def port_in_use(host: str, port: int) -> bool:
    """Whether something already accepts connections on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex((host, port)) == 0


def log_tail(log: Path, lines: int = 40) -> str:
    """The last lines of a log file (empty when there is none)."""
    try:
        data = log.read_bytes()[-64_000:]
    except OSError:
        return ""
    return "\n".join(data.decode(errors="replace").splitlines()[-lines:])


def read_state(path: Path) -> ServerState | None:
    try:
        return ServerState.model_validate_json(path.read_text())
    except (OSError, ValueError):
        return None


def write_state(path: Path, state: ServerState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(state.model_dump_json(indent=2))
    tmp.replace(path)

"""Worker ids that let a restarted process tell a dead predecessor from a live neighbour."""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), which pid reuse changes."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Field 22, counted after the parenthesised command name (which may hold spaces).
    return stat.rsplit(")", 1)[1].split()[19]


def worker_id() -> str:
    """`host:pid:start:token`, unique to one worker pool."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid) or '-'}:{secrets.token_hex(3)}"


def alive(worker: str) -> bool:
    """False only when `worker` certainly belongs to a process of this host that has ended.

    Workers of other hosts are assumed alive: only their heartbeat can tell.
    """
    try:
        host, pid_text, start, _token = worker.split(":")
        pid = int(pid_text)
    except ValueError:
        return True
    if host != socket.gethostname() or start == "-":
        return True
    return _start_time(pid) == start

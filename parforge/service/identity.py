"""Worker ids: random, so that replicas that share a host name and pid (containers, each in its
own PID namespace) never mistake one another's jobs for their own.

Whether a worker is alive is never read from its id: only its heartbeats tell (see
`corpus.store.queue.recover`).
"""

from __future__ import annotations

import secrets


def worker_id() -> str:
    """`worker-` and 64 random bits, unique to one worker pool."""
    return f"worker-{secrets.token_hex(8)}"

"""The store on both backends: throw-away PostgreSQL databases and emptying a migrated store."""

from __future__ import annotations

import subprocess
import uuid

import psycopg
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from corpus.store.migrate import target_metadata
from tests.fakes.paths import ROOT


def postgres_server_url() -> str:
    """URL of the throw-away PostgreSQL server that `scripts/setup.sh` starts (started if
    needed)."""
    out = subprocess.run(
        [
            "bash",
            "-c",
            'source scripts/setup.sh && ensure_postgres >&2 && echo "$PARFORGE_TEST_POSTGRES_URL"',
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def new_postgres_database(server_url: str) -> str:
    """Create an empty database on the test server; return its SQLAlchemy URL."""
    name = f"pf_{uuid.uuid4().hex[:12]}"
    url = make_url(server_url)
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.set(database=name).render_as_string(hide_password=False)


def empty_store(engine: Engine) -> None:
    """Delete every row of a migrated store (and restart its ids)."""
    names = ", ".join(t.name for t in target_metadata().sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))

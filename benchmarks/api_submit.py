"""Submit 1,000 tasks to a real `parforge serve` (workers on a fast scripted runner): request
latency p50/p99 and the time for the workers to drain the queue, on SQLite and PostgreSQL side
by side. Usage: python benchmarks/api_submit.py [--tasks N] [--concurrency C]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def postgres_url() -> str:
    """A fresh database on the throw-away server `scripts/setup.sh` starts."""
    import uuid

    import psycopg
    from sqlalchemy.engine import make_url

    server = (
        os.environ.get("PARFORGE_TEST_POSTGRES_URL")
        or subprocess.run(
            [
                "bash",
                "-c",
                'source scripts/setup.sh && ensure_postgres >&2 && echo "$PARFORGE_TEST_POSTGRES_URL"',
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    url = make_url(server)
    name = f"pf_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(
        url.set(drivername="postgresql").render_as_string(False), autocommit=True
    ) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    return url.set(database=name).render_as_string(False)


def make_key(url: str) -> str:
    from sqlmodel import Session

    from corpus.store import keys, open_store

    engine = open_store(url)
    with Session(engine) as s:
        token = keys.create(s, "bench").token
    engine.dispose()
    return token


def start_server(url: str, data_dir: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PARFORGE_DATA_DIR": data_dir,
        "PARFORGE_STORE__URL": url,
        "PARFORGE_SERVER__WORKERS": str(workers),
        "PARFORGE_SERVER__RUNNER": "tests.fakes.runners:build_scripted_runner",
        "PARFORGE_SERVER__RUNNER_OPTIONS": json.dumps({"samples": 1}),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "parforge.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


async def submit_all(base: str, token: str, n: int, concurrency: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    todo = iter(range(n))
    headers = {"Authorization": f"Bearer {token}"}

    async def client_loop(client: httpx.AsyncClient) -> None:
        for i in todo:
            body = {
                "source": f"int f{i}(int *a, int n);",
                "target": "openmp",
                "budgets": {"samples": 1},
            }
            t0 = time.perf_counter()
            r = await client.post("/v1/tasks", json=body)
            latencies.append(time.perf_counter() - t0)
            assert r.status_code == 202, r.text

    start = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(concurrency)))
    return latencies, time.perf_counter() - start


def wait_drained(base: str, token: str, n: int) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    while True:
        page = httpx.get(
            f"{base}/v1/tasks", params={"status": "succeeded", "limit": 1}, headers=headers
        ).json()
        if page["total"] >= n:
            return
        time.sleep(0.1)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in ("sqlite", "postgres"):
            url = f"sqlite:///{tmp}/bench.db" if backend == "sqlite" else postgres_url()
            token = make_key(url)
            proc, base = start_server(url, tmp, args.workers)
            try:
                latencies, wall = asyncio.run(submit_all(base, token, args.tasks, args.concurrency))
                submitted = time.perf_counter()
                wait_drained(base, token, args.tasks)
                drain = time.perf_counter() - submitted + wall
            finally:
                proc.terminate()
                proc.wait(30)
            results[backend] = {
                "p50": pct(latencies, 50),
                "p99": pct(latencies, 99),
                "max": max(latencies) * 1000,
                "rps": args.tasks / wall,
                "done_s": drain,
            }
            r = results[backend]
            print(
                f"{backend:>8}: {args.tasks} submissions, {args.concurrency} clients: "
                f"p50 {r['p50']:6.1f} ms  p99 {r['p99']:6.1f} ms  max {r['max']:6.1f} ms  "
                f"{r['rps']:6.0f} req/s; all {args.tasks} run by {args.workers} workers after {r['done_s']:5.1f} s"
            )
    s, p = results["sqlite"], results["postgres"]
    print(
        f"postgres/sqlite: p50 x{p['p50'] / s['p50']:.2f}, p99 x{p['p99'] / s['p99']:.2f}, "
        f"throughput x{p['rps'] / s['rps']:.2f}, drain time x{p['done_s'] / s['done_s']:.2f}"
    )


if __name__ == "__main__":
    main()

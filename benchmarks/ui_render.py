"""Time to first render of a task page with 50 candidates (target: under 1 s on this machine).

A real `parforge serve` (queue only) on a SQLite store holding one task with 50 candidates,
each with a verdict, 200 steps of an agent tree and 8 reasoning threads (half of them pruned,
drawn on the token axis); the page is fetched signed in, two ways,
interleaved: the server's answer (httpx: request to last byte of the HTML) and a headless
Chromium's navigation (first contentful paint and DOMContentLoaded from the browser's own
performance entries). Median and range over the rounds.
Usage: python benchmarks/ui_render.py [--rounds 15] [--candidates 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlmodel import Session  # noqa: E402

from corpus.store import keys, open_store  # noqa: E402
from corpus.store.models import (  # noqa: E402
    CandidateRow,
    RunRow,
    StepKind,
    StepRow,
    TaskRow,
    VerdictRow,
    utcnow,
    verdict_columns,
)

SOURCE = "\n".join(
    ["#include <stdio.h>", "int main(void) {", "  double s = 0;"]
    + [f"  for (int i = 0; i < {n}; i++) s += i * {n};" for n in range(1, 60)]
    + ['  printf("%f\\n", s);', "  return 0;", "}"]
)


THREADS = 8


def fill(store_url: str, candidates: int) -> tuple[str, str]:
    """A key and a finished task with `candidates` verdicts, four steps per candidate and
    `THREADS` reasoning threads."""
    engine = open_store(store_url)
    with Session(engine) as s:
        token = keys.create(s, "bench").token
        key = keys.authenticate(s, token)
        assert key is not None
        start = utcnow() - timedelta(minutes=5)
        task = TaskRow(name="render", language="c", target="openmp", source=SOURCE,
                       owner_key_id=key.id, status="succeeded", budgets={})  # fmt: skip
        s.add(task)
        s.flush()
        run = RunRow(task_id=task.id, attempt=1, runner="graph", worker="bench", status="succeeded")
        s.add(run)
        s.flush()
        assert run.id is not None
        seq = 0
        for c in range(candidates):
            plan = StepRow(task_id=task.id, run_id=run.id, seq=seq, kind=StepKind.TOOL_CALL,
                           name="annotate", tool_name="annotate",
                           started_at=start + timedelta(seconds=c * 3),
                           finished_at=start + timedelta(seconds=c * 3 + 1))  # fmt: skip
            s.add(plan)
            s.flush()
            for k in range(3):
                seq += 1
                s.add(StepRow(task_id=task.id, run_id=run.id, seq=seq, kind=StepKind.LLM_CALL,
                              name="rewrite", parent_id=plan.id, prompt_tokens=900,
                              completion_tokens=300,
                              started_at=start + timedelta(seconds=c * 3 + k),
                              finished_at=start + timedelta(seconds=c * 3 + k + 2)))  # fmt: skip
            seq += 1
            source = SOURCE.replace(
                "  double s = 0;",
                f"  double s = 0; /* {c} */\n#pragma omp parallel for reduction(+:s)",
            )
            candidate = CandidateRow(task_id=task.id, run_id=run.id, target="openmp", source=source,
                                     strategy=f"annotate[independent]:L{c}/static",
                                     step_id=plan.id)  # fmt: skip
            s.add(candidate)
            s.flush()
            passed = c % 3 != 0
            data = {"target": "openmp", "status": "passed" if passed else "wrong_output",
                    "reason": "" if passed else "test t1: output differs at line 1",
                    "build": {"ok": True}, "equivalence": {"ok": passed, "outcomes": [
                        {"test": f"t{t}", "workers": w, "ok": passed} for t in range(3) for w in (1, 2, 4)]},
                    "concurrency": {"ok": True}, "timing": {"reference_s": 1.0,
                    "speedup": {"1": 0.95, "2": 1.6 + c / 100, "4": 1.55}} if passed else None}  # fmt: skip
            s.add(VerdictRow(candidate_id=candidate.id, task_id=task.id, run_id=run.id,
                             data=data, **verdict_columns(data)))  # fmt: skip
            if c == candidates - 1:
                task.best_candidate_id = candidate.id
        for t in range(THREADS):
            seq += 1
            pruned = t % 2 == 1
            tokens = 120 + 40 * t if pruned else 768
            result = {"outline": {"strategy": f"strategy {t}"}, "status": "pruned" if pruned else "finished",
                      "reason": "repeating itself: one short pattern" if pruned else "",
                      "tokens_saved": 768 - tokens if pruned else 0}  # fmt: skip
            s.add(StepRow(task_id=task.id, run_id=run.id, seq=seq, kind=StepKind.LLM_CALL,
                          name="thread", completion_tokens=tokens, sampling={"max_tokens": 768},
                          result=result, started_at=start, finished_at=start + timedelta(seconds=20)))  # fmt: skip
        s.add(task)
        s.commit()
        task_id = task.id
    engine.dispose()
    return token, task_id


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pf-ui-") as tmp:
        store_url = f"sqlite:///{tmp}/store.db"
        token, task_id = fill(store_url, args.candidates)
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PARFORGE_DATA_DIR": tmp,
               "PARFORGE_STORE__URL": store_url, "PARFORGE_SERVER__WORKERS": "0",
               "PARFORGE_SANDBOX__TYPE": "local"}  # fmt: skip
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115
        server = subprocess.Popen(
            [sys.executable, "-m", "parforge.cli", "serve", "--port", str(port)],
            env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit((Path(tmp) / "server.log").read_text())
                time.sleep(0.1)
            measure(url, token, task_id, args.rounds, args.candidates)
        finally:
            server.terminate()
            server.wait(15)


def measure(url: str, token: str, task_id: str, rounds: int, candidates: int) -> None:
    from selenium import webdriver

    client = httpx.Client(base_url=url, follow_redirects=False)
    signed = client.get("/ui/login", params={"key": token})
    assert signed.status_code == 303
    page = f"/ui/tasks/{task_id}"
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(
        options=options, service=webdriver.ChromeService(shutil.which("chromedriver"))
    )
    server_s, paint_s, loaded_s, sizes = [], [], [], []
    try:
        driver.get(f"{url}/ui/login?key={token}")
        for _ in range(rounds):
            begin = time.perf_counter()
            answer = client.get(page)
            server_s.append(time.perf_counter() - begin)
            assert answer.status_code == 200 and answer.text.count("<tr") >= candidates
            sizes.append(len(answer.content))
            driver.get(f"{url}{page}")
            paint = None
            for _ in range(40):  # the entry is written after the frame is drawn
                paint = driver.execute_script(
                    "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                    "return p ? p.startTime : null;"
                )
                if paint is not None:
                    break
                time.sleep(0.05)
            if paint is None:
                raise SystemExit("the browser recorded no first contentful paint")
            loaded = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return n.domContentLoadedEventEnd;"
            )
            paint_s.append(float(paint) / 1000)
            loaded_s.append(float(loaded) / 1000)
    finally:
        driver.quit()
    print(f"task page with {candidates} candidates, {candidates * 4} steps and {THREADS} threads, "
          f"{statistics.median(sizes) / 1024:.0f} KiB of HTML, {rounds} rounds interleaved")  # fmt: skip
    for name, values in (("server answer (httpx)", server_s),
                         ("first contentful paint (Chromium)", paint_s),
                         ("DOMContentLoaded (Chromium)", loaded_s)):  # fmt: skip
        print(f"  {name:36s} median {statistics.median(values) * 1000:7.1f} ms  "
              f"range {min(values) * 1000:.1f}-{max(values) * 1000:.1f} ms")  # fmt: skip
    verdict = "met" if statistics.median(paint_s) < 1.0 else "NOT met"
    print(f"target: first render under 1 s: {verdict}")


if __name__ == "__main__":
    main()

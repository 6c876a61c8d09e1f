"""The web UI in a real browser (headless Chromium through Selenium and chromedriver) against a
real `parforge serve`: the translate graph on the Docker sandbox (no model call, so a task
takes seconds), the store in SQLite. Log in by the link, submit a task through the form, watch
it finish live, read its tree, candidates, verdicts and best program; open an eval and its
leaderboard; a second key sees none of it; a hostile program renders as text; no page writes
an error to the browser's console. Screenshots of the main pages go to `PARFORGE_SCREENSHOTS`
(a directory) when it is set, else to the test's temporary directory."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from corpus.store import keys, open_store
from tests.fakes.evals import stored_eval
from tests.fakes.server import Server

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import (  # noqa: E402
    NoAlertPresentException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None, reason="needs chromium and chromedriver"
    ),
]

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    double *x = malloc(n * sizeof *x);
    for (long i = 0; i < n; i++) x[i] = (double)(i % 7) * 0.5;
    double sum = 0.0;
    for (long i = 0; i < n; i++) sum += x[i] * x[i];
    printf("%.6e\\n", sum);
    free(x);
    return 0;
}
"""
HOSTILE = """#include <stdio.h>
/* </textarea></pre><script>alert("owned")</script><img src=x onerror=alert(2)> */
int main(void) { printf("<b>%d</b>\\n", 42); return 0; }
"""


@pytest.fixture(scope="module")
def served(
    sandbox_image: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("ui")
    store_url = f"sqlite:///{data / 'store.db'}"
    engine = open_store(store_url)
    with Session(engine) as s:
        first, second = keys.create(s, "first").token, keys.create(s, "second").token
    engine.dispose()
    summary = {"rows": [{"group": "all", "k": 1, "problems": 3, "samples": 3, "build": 0.667,
                         "passed": 0.667, "race_free": 0.667, "speedup": 1.4,
                         "efficiency": 0.35, "intervals": {"passed": [0.21, 0.94]}}]}  # fmt: skip
    run_id = stored_eval(
        store_url,
        first,
        {"03_dense_la_axpy": "passed", "25_reduce_xor": "passed",
         "41_sort_k-th_smallest_element": "build_failed"},
        "smollm2",
        summary,
    )  # fmt: skip
    server = Server(
        store_url,
        data,
        env={
            "PARFORGE_SANDBOX__TYPE": "docker",
            "PARFORGE_GRAPH__USE_MODEL": "false",
            "PARFORGE_GRAPH__PLANNER": "false",
            "PARFORGE_GRAPH__TIMING_REPEATS": "3",
        },
    )
    del server.env["PARFORGE_SERVER__RUNNER"]  # each task on its agent's runner: the graph
    del server.env["PARFORGE_SERVER__RUNNER_OPTIONS"]
    server.start()
    try:
        yield {
            "url": server.url,
            "first": first,
            "second": second,
            "eval": run_id,
            "store": store_url,
        }
    finally:
        server.stop()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def shots() -> Path | None:
    where = os.environ.get("PARFORGE_SCREENSHOTS")
    return Path(where) if where else None


def snap(driver: Any, name: str, tmp_path: Path) -> None:
    folder = shots() or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / f"{name}.png"))


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def log_in(driver: Any, url: str, key: str) -> None:
    driver.delete_all_cookies()
    driver.get(f"{url}/ui/login?key={key}")
    assert driver.current_url == f"{url}/ui/", driver.current_url  # the key left the address
    assert key not in driver.page_source


def submit(driver: Any, url: str, source: str, tests: str, name: str) -> str:
    driver.get(f"{url}/ui/tasks/new")
    form = driver.find_element(By.CSS_SELECTOR, "form.card")
    name_box = form.find_element(By.NAME, "name")
    name_box.clear()
    name_box.send_keys(name)
    Select(form.find_element(By.NAME, "language")).select_by_value("c")
    Select(form.find_element(By.NAME, "target")).select_by_value("openmp")
    # The source goes in as a property, not as typed keys (no editor auto-indent to undo).
    driver.execute_script(
        "arguments[0].value = arguments[1];", form.find_element(By.ID, "source"), source
    )
    form.find_element(By.ID, "tests").send_keys(tests)
    form.find_element(By.ID, "submit").click()
    WebDriverWait(driver, 60).until(
        lambda d: "/ui/tasks/" in d.current_url and "new" not in d.current_url
    )
    return str(driver.current_url).rsplit("/", 1)[1]


def finished(driver: Any, limit_s: float = 240) -> str:
    """The status the page shows once the task ends (the page follows it live and reloads)."""
    terminal = {"succeeded", "no_verified_candidate", "failed", "cancelled", "not_run"}
    # The page reloads when the task ends: an element read across the reload is stale.
    WebDriverWait(
        driver, limit_s, poll_frequency=0.5, ignored_exceptions=[StaleElementReferenceException]
    ).until(
        lambda d: (
            d.find_element(By.ID, "status").text in terminal
            and not d.find_element(By.ID, "status").get_attribute("data-events")
        )
    )
    return str(driver.find_element(By.ID, "status").text)


def test_a_task_submitted_in_the_browser_is_watched_to_its_verdict(
    served: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    url = served["url"]
    log_in(browser, url, served["first"])
    snap(browser, "1-tasks-empty", tmp_path)
    task_id = submit(browser, url, PROGRAM, "200000\n3000000", "sum of squares")
    # While it runs, the page follows its events (the badge is live, not a reload loop).
    assert browser.find_element(By.ID, "status").text in {"queued", "running", "succeeded"}
    assert finished(browser) == "succeeded", browser.find_element(By.TAG_NAME, "main").text
    snap(browser, "2-task-succeeded", tmp_path)
    steps = browser.find_elements(By.CSS_SELECTOR, "#steps tbody tr")
    assert len(steps) >= 3
    rows = browser.find_elements(By.CSS_SELECTOR, "#candidates tbody tr")
    assert rows and any("passed" in r.text for r in rows)
    best = browser.find_element(By.CSS_SELECTOR, "#candidates tr.best")
    assert "passed" in best.text and "ok" in best.text  # verdict and build
    source = browser.find_element(By.ID, "best-source").text
    assert "#pragma omp" in source
    assert "#pragma omp" in browser.find_element(By.ID, "diff").text
    assert browser.find_elements(By.CSS_SELECTOR, "svg.chart rect")  # the speedup chart
    browser.get(f"{url}/ui/")
    assert "sum of squares" in browser.find_element(By.ID, "tasks").text
    assert task_id[:8] in browser.find_element(By.ID, "tasks").text
    snap(browser, "3-tasks", tmp_path)
    assert console_errors(browser) == []


def test_a_hostile_program_renders_as_text(
    served: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    url = served["url"]
    log_in(browser, url, served["first"])
    task_id = submit(browser, url, HOSTILE, "", "<i>hostile</i>")
    finished(browser)
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 (no script of the program ran)
    original = browser.find_element(By.ID, "original").text
    assert '</textarea></pre><script>alert("owned")</script>' in original
    assert browser.find_elements(By.CSS_SELECTOR, "main img") == []
    assert browser.find_elements(By.CSS_SELECTOR, "main i") == []
    assert "<i>hostile</i>" in browser.find_element(By.TAG_NAME, "h1").text
    snap(browser, "4-hostile-task", tmp_path)
    browser.get(f"{url}/ui/tasks/{task_id}/json")
    assert "</script>" in browser.find_element(By.TAG_NAME, "body").text
    assert console_errors(browser) == []


def test_an_eval_and_its_leaderboard(served: dict[str, Any], browser: Any, tmp_path: Path) -> None:
    url = served["url"]
    log_in(browser, url, served["first"])
    browser.get(f"{url}/ui/evals")
    board = browser.find_element(By.ID, "leaderboard").text
    assert "pareval" in board and "0.667" in board and "1.400" in board
    snap(browser, "5-evals", tmp_path)
    browser.find_element(
        By.CSS_SELECTOR, f"#leaderboard a[href='/ui/evals/{served['eval']}']"
    ).click()
    grid = browser.find_element(By.ID, "problems").text
    assert "41_sort_k-th_smallest_element" in grid and "build_failed" in grid
    assert "[0.21, 0.94]" in browser.find_element(By.ID, "metrics").text
    snap(browser, "6-eval", tmp_path)
    assert console_errors(browser) == []


def _task_with_threads(store_url: str, token: str) -> str:
    """A task of `token`'s with the steps of a reasoning-threads run: four threads, two of them
    pruned (one converged on another, one repeating itself), one revived."""
    from corpus.store.models import RunRow, StepKind, StepRow, TaskCreate, TaskRow

    engine = open_store(store_url)
    with Session(engine) as s:
        key = keys.authenticate(s, token)
        assert key is not None
        create = TaskCreate(name="threads", language="c", target="openmp", source=PROGRAM)
        # Stored as ended, so that no worker of the server claims it.
        ended = {"owner_key_id": key.id, "status": "no_verified_candidate", "reason": "shown"}
        task = TaskRow.model_validate(create.model_dump(mode="json") | ended)
        s.add(task)
        s.flush()
        run = RunRow(task_id=task.id, attempt=1, runner="graph", worker="t")
        s.add(run)
        s.flush()
        threads = [
            ("collapse(2) over both loops", "finished", 512, {}),
            ("reduction on the sum", "pruned", 140, {"pruned_by": 0, "reason": "converged"}),
            ("tasks per row block", "pruned", 96,
             {"reason": "repeating itself: one short pattern over its last code tokens"}),
            ("reduction on the sum", "finished", 300, {"revived": True}),
        ]  # fmt: skip
        for seq, (strategy, status, tokens, extra) in enumerate(threads):
            result = {"outline": {"strategy": strategy}, "status": status,
                      "tokens_saved": 768 - tokens if status == "pruned" else 0, **extra}  # fmt: skip
            s.add(StepRow(task_id=task.id, run_id=run.id, seq=seq, kind=StepKind.LLM_CALL,
                          name="thread", completion_tokens=tokens,
                          sampling={"max_tokens": 768}, result=result))  # fmt: skip
        s.commit()
        task_id = str(task.id)
    engine.dispose()
    return task_id


def test_reasoning_threads_are_drawn_where_they_were_pruned(
    served: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    url = served["url"]
    task_id = _task_with_threads(served["store"], served["first"])
    log_in(browser, url, served["first"])
    browser.get(f"{url}/ui/tasks/{task_id}")
    picture = browser.find_element(By.ID, "threads")
    assert len(picture.find_elements(By.CSS_SELECTOR, "rect.written")) == 4
    assert len(picture.find_elements(By.CSS_SELECTOR, "line.cut")) == 2
    text = picture.text
    assert "pruned at 140 of 768 tokens" in text and "converged on thread 1" in text
    snap(browser, "9-reasoning-threads", tmp_path)
    assert console_errors(browser) == []


def test_a_second_key_sees_none_of_the_firsts_work(
    served: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    url = served["url"]
    log_in(browser, url, served["first"])
    task_id = submit(browser, url, PROGRAM, "1000", "first key's task")
    log_in(browser, url, served["second"])
    assert "first key's task" not in browser.find_element(By.TAG_NAME, "main").text
    browser.get(f"{url}/ui/tasks/{task_id}")
    assert "Not found" in browser.find_element(By.TAG_NAME, "h1").text
    browser.get(f"{url}/ui/evals")
    assert browser.find_elements(By.ID, "leaderboard") == []
    browser.get(f"{url}/ui/evals/{served['eval']}")
    assert "Not found" in browser.find_element(By.TAG_NAME, "h1").text
    snap(browser, "7-second-key", tmp_path)
    # Logging out ends the session: the pages send the browser back to the login form.
    browser.get(f"{url}/ui/")
    browser.find_element(By.CSS_SELECTOR, ".logout button").click()
    browser.get(f"{url}/ui/")
    assert browser.current_url == f"{url}/ui/login"
    snap(browser, "8-login", tmp_path)
    # A 404 in the console is the page above, not a script's error.
    assert [e for e in console_errors(browser) if "404" not in e] == []

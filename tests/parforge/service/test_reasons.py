"""Reasons stored for users name what failed, without internal URLs, container ids or SQL."""

from __future__ import annotations

import sqlalchemy.exc

from parforge.service.reasons import MAX_CHARS, public_reason, scrub

CONTAINER = "4f6c1c2d9e0a" + "b" * 52


def test_urls_and_container_ids_are_taken_out_and_what_failed_stays():
    message = (
        f"500 Server Error for http+docker://localhost/v1.43/containers/{CONTAINER}/exec: "
        f"No such container: {CONTAINER[:12]}; model at http://10.0.0.7:8000/v1 refused"
    )
    reason = public_reason(RuntimeError(message))
    assert reason.startswith("runner error: RuntimeError: 500 Server Error for <internal address>")
    assert "No such container: <container>" in reason and "refused" in reason
    for leak in ("localhost", "10.0.0.7", CONTAINER[:12], "http"):
        assert leak not in reason


def test_a_task_id_is_not_mistaken_for_a_container():
    assert scrub(f"task {'a' * 32} failed") == f"task {'a' * 32} failed"


def test_a_database_error_says_only_that():
    error = sqlalchemy.exc.OperationalError(
        "UPDATE tasks SET status=%(status)s WHERE tasks.id = %(id)s",
        {"status": "running", "id": "x"},
        Exception('connection to server at "db.internal" (10.1.2.3), port 5432 failed'),
    )
    assert public_reason(error) == "runner error: OperationalError: database error"


def test_sql_appended_to_another_message_is_cut():
    text = "insert failed\n[SQL: INSERT INTO steps VALUES (?)]\n[parameters: (1,)]"
    assert scrub(text) == "insert failed"


def test_a_reason_is_one_bounded_line():
    reason = scrub("line one\nline two " + "x" * 2 * MAX_CHARS)
    assert "\n" not in reason and len(reason) == MAX_CHARS and reason.endswith("…")
    assert public_reason(ValueError()) == "runner error: ValueError"

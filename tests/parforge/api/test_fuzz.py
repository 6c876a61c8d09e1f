"""Fuzz every operation of the published OpenAPI spec: whatever comes in, never a 5xx."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.python.asgi import shutdown_lifespans
from sqlmodel import Session

from corpus.store import keys, open_store
from parforge.api import create_app
from tests.fakes.api import settings_for
from tests.fakes.judge import judging_originals
from tests.fakes.runners import ScriptedRunner


@pytest.mark.slow
def test_no_server_errors(store_url, tmp_path):
    engine = open_store(store_url)
    with Session(engine) as s:
        auth = {"Authorization": f"Bearer {keys.create(s, 'fuzz').token}"}
    engine.dispose()
    app = create_app(
        settings_for(store_url, tmp_path, max_body_bytes=64 * 1024, max_source_chars=10_000),
        runner=ScriptedRunner(samples=1),
        judge=judging_originals(),
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    try:
        for operation in operations:

            @given(case=operation.as_strategy())
            @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
            def no_5xx(case: schemathesis.Case) -> None:
                response = case.call(headers=auth, timeout=10)
                case.validate_response(response, checks=[not_a_server_error])

            no_5xx()
    finally:
        shutdown_lifespans()

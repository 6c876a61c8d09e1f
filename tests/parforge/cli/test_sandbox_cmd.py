"""`parforge sandbox ...` against the real engine."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from parforge.cli import app

pytestmark = pytest.mark.docker


def test_build_prints_the_tag_when_up_to_date(sandbox_image: str) -> None:
    result = CliRunner().invoke(app, ["sandbox", "build"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith(sandbox_image)


def test_prune_and_info(sandbox_image: str) -> None:
    pruned = CliRunner().invoke(app, ["sandbox", "prune"])
    assert pruned.exit_code == 0, pruned.output
    info = CliRunner().invoke(app, ["sandbox", "info", "--json"])
    assert info.exit_code == 0 and '"backend":"docker"' in info.stdout

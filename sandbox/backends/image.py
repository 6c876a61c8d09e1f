"""The sandbox image: its content-derived tag, and building it, offline when it must.

The tag is `parforge-sandbox:<sha>` where `<sha>` hashes the build context (the Dockerfile and the
supervisor), so changing either gives a new tag and the next `parforge sandbox build` rebuilds.

The base (`ARG BASE`) is found in this order: present in the engine; for the default Debian base,
an earlier offline bootstrap (`parforge-base:bookworm`); pulled from a registry; and, for the
default base only, bootstrapped offline: `debootstrap --variant=minbase` from the host's Debian
mirror, then `docker import`. Measured on a 2-core host: debootstrap ~1 min, import ~6 s, the
toolchain layer ~1.5 min.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import docker

from sandbox.backends.engine import Engine
from sandbox.errors import ImageBuildError, SandboxUnavailable

CONTEXT_DIR = Path(__file__).parent / "images"
CONTEXT_FILES = ("Dockerfile", "supervisor.py")
REPOSITORY = "parforge-sandbox"
BOOTSTRAP_REPOSITORY = "parforge-base"
BOOTSTRAP_SUITE = "bookworm"
BOOTSTRAP_IMAGE = f"{BOOTSTRAP_REPOSITORY}:{BOOTSTRAP_SUITE}"
APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))


class BuildProgress(Protocol):
    """Where a build reports what it is doing."""

    def step(self, message: str) -> None:
        """A stage begins (bootstrapping the base, building the toolchain layer)."""

    def line(self, text: str) -> None:
        """One line of a tool's output."""


class _Quiet:
    def step(self, message: str) -> None:
        pass

    def line(self, text: str) -> None:
        pass


def context_files() -> dict[str, bytes]:
    """The build context: file name → content."""
    return {name: (CONTEXT_DIR / name).read_bytes() for name in CONTEXT_FILES}


def image_tag() -> str:
    """`parforge-sandbox:<first 12 hex of the context's sha256>`."""
    digest = hashlib.sha256()
    for name, content in sorted(context_files().items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    return f"{REPOSITORY}:{digest.hexdigest()[:12]}"


def default_base() -> str:
    """The Dockerfile's `ARG BASE=...` default."""
    match = re.search(r"^ARG BASE=(\S+)", context_files()["Dockerfile"].decode(), re.MULTILINE)
    if match is None:
        raise ImageBuildError("the sandbox Dockerfile has no `ARG BASE=<image>` default")
    return match.group(1)


def debian_mirror(sources: Iterable[str], suite: str = BOOTSTRAP_SUITE) -> str | None:
    """The first Debian archive URI serving `suite` in apt sources (one-line or deb822 format)."""
    for text in sources:
        for stanza in re.split(r"\n\s*\n", text):
            fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.MULTILINE))
            suites, types = fields.get("Suites", "").split(), fields.get("Types", "deb").split()
            if "URIs" in fields and suite in suites and "deb" in types:
                return fields["URIs"].split()[0]
        for line in text.splitlines():
            parts = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
            if len(parts) >= 3 and parts[0] == "deb" and parts[2] == suite:
                return parts[1]
    return None


def host_debian_mirror() -> str | None:
    """The host's Debian mirror from its apt sources, if it has any for the bootstrap suite."""
    texts = []
    for place in APT_SOURCES:
        files = (
            sorted(place.glob("*.list")) + sorted(place.glob("*.sources"))
            if place.is_dir()
            else [place]
        )
        texts += [f.read_text(errors="replace") for f in files if f.is_file()]
    return debian_mirror(texts)


async def image_exists(engine: Engine, name: str) -> bool:
    """Whether the engine has an image by that name."""

    def probe(client: docker.DockerClient) -> bool:
        try:
            client.images.get(name)
        except docker.errors.ImageNotFound:
            return False
        return True

    return await engine.call(probe, f"looking up image {name}")


async def ensure_image(engine: Engine, image: str | None) -> str:
    """The image to run (`image`, or the derived tag); `SandboxUnavailable` when it is missing."""
    name = image or image_tag()
    if not await image_exists(engine, name):
        raise SandboxUnavailable(f"sandbox image {name} is missing: run `parforge sandbox build`")
    return name


async def build_image(
    engine: Engine,
    base: str | None = None,
    force: bool = False,
    progress: BuildProgress | None = None,
) -> str:
    """Build the sandbox image if its tag is missing (or always, with `force`); return the tag."""
    progress = progress or _Quiet()
    tag = image_tag()
    if not force and await image_exists(engine, tag):
        progress.step(f"{tag} is up to date")
        return tag
    base_image = await resolve_base(engine, base, progress)
    progress.step(f"building {tag} from {base_image} (toolchain layer: about 2 minutes)")
    await engine.call(
        lambda client: _build(client, tag, base_image, force, progress),
        f"building {tag}",
        error=ImageBuildError,
    )
    progress.step(f"built {tag}")
    return tag


async def resolve_base(engine: Engine, base: str | None, progress: BuildProgress) -> str:
    """A base image present in the engine: as named, bootstrapped earlier, pulled, or bootstrapped."""
    wanted = base or default_base()
    bootstrappable = wanted == default_base()
    if await image_exists(engine, wanted):
        return wanted
    if bootstrappable and await image_exists(engine, BOOTSTRAP_IMAGE):
        return BOOTSTRAP_IMAGE
    progress.step(f"pulling {wanted}")
    pull_error = await engine.call(lambda client: _try_pull(client, wanted), f"pulling {wanted}")
    if pull_error is None:
        return wanted
    progress.line(f"cannot pull {wanted}: {pull_error}")
    if not bootstrappable:
        raise ImageBuildError(
            f"base image {wanted} is not in the engine and cannot be pulled: {pull_error}"
        )
    await bootstrap_base(engine, progress)
    return BOOTSTRAP_IMAGE


async def bootstrap_base(engine: Engine, progress: BuildProgress) -> None:
    """Build `parforge-base:bookworm` without a registry: debootstrap, tar, `docker import`."""
    if shutil.which("debootstrap") is None:
        raise ImageBuildError(
            "no registry answers and debootstrap is missing: install it (apt-get install debootstrap) "
            "or give a base image that the engine has (--base)"
        )
    if os.geteuid() != 0:
        raise ImageBuildError(
            "bootstrapping the base image with debootstrap needs root: run the build as root"
        )
    mirror = host_debian_mirror()
    with tempfile.TemporaryDirectory(prefix="parforge-debootstrap-") as tmp:
        rootfs, tarball = Path(tmp) / "rootfs", Path(tmp) / "rootfs.tar"
        progress.step(f"bootstrapping Debian {BOOTSTRAP_SUITE} with debootstrap (about a minute)")
        argv = ["debootstrap", "--variant=minbase", BOOTSTRAP_SUITE, str(rootfs)]
        await asyncio.to_thread(run_streamed, [*argv, *([mirror] if mirror else [])], progress)
        progress.step(f"importing the root file system as {BOOTSTRAP_IMAGE}")
        await asyncio.to_thread(
            run_streamed,
            ["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball), "."],
            progress,
        )
        await engine.call(
            lambda client: client.api.import_image_from_file(
                str(tarball), repository=BOOTSTRAP_REPOSITORY, tag=BOOTSTRAP_SUITE
            ),
            f"importing {BOOTSTRAP_IMAGE}",
            error=ImageBuildError,
        )


def _try_pull(client: docker.DockerClient, name: str) -> str | None:
    """Pull `name`; return why it failed, or None (no registry is an expected answer here)."""
    repository, _, tag = name.partition(":")
    try:
        client.images.pull(repository, tag=tag or "latest")
    except docker.errors.APIError as exc:
        return str(exc.explanation or exc)
    return None


def _build(
    client: docker.DockerClient, tag: str, base: str, force: bool, progress: BuildProgress
) -> None:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for name, content in context_files().items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    archive.seek(0)
    docker_build(
        client,
        tag,
        context=archive,
        buildargs={"BASE": base},
        force=force,
        progress=progress,
        labels={"parforge.sandbox.backends.image": "1"},
    )


def docker_build(
    client: docker.DockerClient,
    tag: str,
    *,
    context: io.BytesIO | Path,
    buildargs: dict[str, str],
    progress: BuildProgress,
    force: bool = False,
    target: str | None = None,
    labels: dict[str, str] | None = None,
) -> None:
    """Build `tag` from a context (a tar archive in memory, or a directory), passing the
    builder's output on line by line; `ImageBuildError` with the builder's reason. Blocking."""
    options = {
        "tag": tag,
        "buildargs": buildargs,
        "target": target,
        "rm": True,
        "forcerm": True,
        "nocache": force,
        "decode": True,
        "labels": labels or {},
    }
    stream = (
        client.api.build(path=str(context), **options)  # type: ignore[arg-type]
        if isinstance(context, Path)
        else client.api.build(fileobj=context, custom_context=True, **options)  # type: ignore[arg-type]
    )
    for chunk in stream:
        if "error" in chunk:
            raise ImageBuildError(f"building {tag} failed: {chunk['error'].strip()}")
        for text in (chunk.get("stream"), chunk.get("status")):
            if text and text.strip():
                progress.line(text.rstrip())


def run_streamed(argv: list[str], progress: BuildProgress) -> None:
    """Run a host tool, passing its output on line by line; fail with its last lines."""
    tail: deque[str] = deque(maxlen=20)
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.rstrip()
            tail.append(line)
            progress.line(line)
    if proc.returncode != 0:
        raise ImageBuildError(f"{argv[0]} failed (exit {proc.returncode}):\n" + "\n".join(tail))

"""Local backend: plain subprocesses in a temporary directory.

For hosts without Docker (a bare GPU machine, a laptop). Same contract as the docker backend,
weaker isolation, and said so in `info()`:

- always: a fresh process session per command, killed as a whole tree on time-out or when its
  output passes the limit; resident memory of the tree watched and capped; file size and core
  dumps limited by rlimits;
- with bubblewrap (`bwrap`) installed: the root filesystem read-only, the workspace the only
  writable place besides a private /tmp, no network, a private PID namespace;
- without bubblewrap: the program runs as the calling user and can read what that user reads
  and reach the network. Use the docker backend for untrusted code whenever you can.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from sandbox.config import LocalConfig
from sandbox.errors import SandboxUnavailable, WorkspaceError
from sandbox.models import DEFAULT_OUTPUT_LIMIT, Command, CommandResult, SandboxInfo
from sandbox._paths import safe_relative

_MEMORY_POLL_S = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")


class LocalSandbox:
    """Workspaces as temporary directories on this host."""

    def __init__(self, config: LocalConfig) -> None:
        self.config = config
        self._slots = asyncio.Semaphore(config.max_concurrency)
        bwrap = shutil.which("bwrap")
        if config.bubblewrap == "on" and bwrap is None:
            raise SandboxUnavailable("bubblewrap was required (bubblewrap=on) but `bwrap` is not installed")
        self._bwrap = bwrap if config.bubblewrap != "off" else None

    def info(self) -> SandboxInfo:
        isolation = "bubblewrap (read-only root, no network, private pids)" if self._bwrap else "rlimits only"
        return SandboxInfo(backend="local", isolation=isolation, gpu=_host_has_gpu())

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[LocalWorkspace]:
        async with self._slots:
            root = Path(tempfile.mkdtemp(prefix="parforge-ws-", dir=self.config.root))
            try:
                yield LocalWorkspace(root, self.config, self._bwrap)
            finally:
                await asyncio.to_thread(shutil.rmtree, root, True)

    async def aclose(self) -> None:
        """Nothing to release: workspaces are removed as their contexts exit."""


class LocalWorkspace:
    """One temporary directory; commands run with it as their root."""

    def __init__(self, root: Path, config: LocalConfig, bwrap: str | None) -> None:
        self.root = root
        self._config = config
        self._bwrap = bwrap

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        for name, content in files.items():
            path = self.root / safe_relative(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode() if isinstance(content, str) else content
            path.write_bytes(data)

    async def read_file(self, path: str, limit: int = DEFAULT_OUTPUT_LIMIT) -> bytes:
        target = self.root / safe_relative(path)
        try:
            with target.open("rb") as f:
                return f.read(limit)
        except OSError as exc:
            raise WorkspaceError(f"cannot read {path!r} from the workspace: {exc}") from exc

    async def run(self, command: Command) -> CommandResult:
        cwd = self.root / safe_relative(command.cwd) if command.cwd not in ("", ".") else self.root
        argv = self._wrap(command.argv, cwd)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.root), "LANG": "C.UTF-8"}
        env.update(command.env)
        limit = min(command.output_limit, self._config.output_limit)
        start = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                preexec_fn=self._limits,
            )
        except (FileNotFoundError, PermissionError) as exc:
            # A missing compiler or program is the job's result, like `sh: not found`.
            return CommandResult(exit_code=127, stderr=f"cannot execute {argv[0]}: {exc}")
        runner = _Runner(proc, limit, self._config.memory_mb << 20)
        timed_out = await runner.wait(command.stdin.encode(), command.timeout_s)
        return CommandResult(
            exit_code=proc.returncode,
            stdout=runner.stdout.decode(errors="replace"),
            stderr=runner.stderr.decode(errors="replace") + runner.note,
            duration_s=time.monotonic() - start,
            timed_out=timed_out,
            output_truncated=runner.truncated,
        )

    def _wrap(self, argv: list[str], cwd: Path) -> list[str]:
        if not self._bwrap:
            return argv
        root = str(self.root)
        return [
            self._bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--bind", root, root, "--unshare-net", "--unshare-pid",
            "--unshare-ipc", "--die-with-parent", "--new-session", "--chdir", str(cwd),
            *argv,
        ]  # fmt: skip

    def _limits(self) -> None:
        file_size = self._config.file_size_mb << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _Runner:
    """Feeds stdin, drains capped output, watches memory and the clock for one process tree."""

    def __init__(self, proc: asyncio.subprocess.Process, limit: int, memory_bytes: int) -> None:
        self.proc = proc
        self.limit = limit
        self.memory_bytes = memory_bytes
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.truncated = False
        self.note = ""

    async def wait(self, stdin: bytes, timeout_s: float) -> bool:
        """Run to completion; return True when the time-out killed it."""
        assert self.proc.stdout and self.proc.stderr
        pumps = [
            asyncio.create_task(self._feed(stdin)),
            asyncio.create_task(self._drain(self.proc.stdout, self.stdout)),
            asyncio.create_task(self._drain(self.proc.stderr, self.stderr)),
        ]
        watch = asyncio.create_task(self._watch_memory())
        timed_out = False
        try:
            await asyncio.wait_for(self.proc.wait(), timeout_s)
        except TimeoutError:
            timed_out = True
            self.kill()
            await self.proc.wait()
        finally:
            watch.cancel()
            # Orphans that kept the pipes open must not keep us waiting.
            self.kill()
            await asyncio.wait(pumps, timeout=5)
            for task in pumps:
                task.cancel()
        return timed_out

    def kill(self) -> None:
        for pid in [self.proc.pid, *_descendants(self.proc.pid)]:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    async def _feed(self, data: bytes) -> None:
        assert self.proc.stdin
        with suppress(BrokenPipeError, ConnectionResetError):
            if data:
                self.proc.stdin.write(data)
                await self.proc.stdin.drain()
        self.proc.stdin.close()

    async def _drain(self, stream: asyncio.StreamReader, sink: bytearray) -> None:
        while chunk := await stream.read(65536):
            room = self.limit - len(sink)
            if len(chunk) > room:
                sink += chunk[: max(room, 0)]
                self.truncated = True
                self.note = f"\n[parforge: output passed {self.limit} bytes; process killed]"
                self.kill()
                return
            sink += chunk

    async def _watch_memory(self) -> None:
        while True:
            await asyncio.sleep(_MEMORY_POLL_S)
            pids = [self.proc.pid, *_descendants(self.proc.pid)]
            if sum(_rss(pid) for pid in pids) > self.memory_bytes:
                self.note = f"\n[parforge: memory passed {self.memory_bytes >> 20} MiB; process killed]"
                self.kill()
                return


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _host_has_gpu() -> bool:
    return Path("/dev/nvidia0").exists() or Path("/dev/nvidiactl").exists()

"""Local backend: plain subprocesses in a temporary directory.

For hosts without Docker (a bare GPU machine, a laptop). Same contract as the docker backend,
weaker isolation, and said so in `info()`:

- always: a fresh process session per command, its group killed when it ends and its whole tree
  on time-out or when its output passes the limit; resident memory of the tree watched and
  capped; file size and core dumps limited by rlimits (set by util-linux `prlimit` when present);
  a fresh scratch directory (HOME, TMPDIR) and tool-log directory per command, removed after;
  pinning with util-linux `taskset`;
- with bubblewrap (`bwrap`) installed: the root filesystem read-only, no network, a private PID
  namespace (every process of the command dies with it, so a straggler's late output is lost),
  no capabilities, and the workspace as the command may see it: its cwd's top-level directory
  and `reads` read-only, its `writes` and its own places read-write, nothing else;
- what it cannot contain even with bubblewrap: a fork bomb (no process-count limit: RLIMIT_NPROC
  does not bind root and there is no pids cgroup), reading host files (the host's root is bound
  read-only, so whatever the user can read stays readable), filling the disk with many files
  (the workspace is a host directory: a per-file size limit, no quota). Every command runs as
  the same user: the CPU time of a tree is not measured (so neither is the load beside it);
- without bubblewrap: the program runs as the calling user and can read and write what that
  user can (the reference's directory included) and reach the network. Use the docker backend
  for untrusted code whenever you can.
"""

from __future__ import annotations

import asyncio
import functools
import os
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

from sandbox._paths import safe_relative
from sandbox.config import LocalConfig
from sandbox.errors import SandboxUnavailable, WorkspaceError
from sandbox.models import (
    COLLECT,
    DEFAULT_OUTPUT_LIMIT,
    SCRATCH,
    Command,
    CommandResult,
    SandboxInfo,
)

_MEMORY_POLL_S = 0.05
_LINGER_S = 0.5
_PAGE = os.sysconf("SC_PAGE_SIZE")


class LocalSandbox:
    """Workspaces as temporary directories on this host."""

    def __init__(self, config: LocalConfig) -> None:
        self.config = config
        self._slots = asyncio.Semaphore(config.max_concurrency)
        bwrap = shutil.which("bwrap")
        if config.bubblewrap == "on" and bwrap is None:
            raise SandboxUnavailable(
                "bubblewrap was required (bubblewrap=on) but `bwrap` is not installed"
            )
        self._bwrap = bwrap if config.bubblewrap != "off" else None
        # util-linux's prlimit sets the rlimits between fork and exec for us, so the spawn needs
        # no Python callback in the child and stays a fast vfork (measured: ~1 ms against ~5 ms,
        # and far more on a loaded host).
        self._prlimit = shutil.which("prlimit")
        self._taskset = shutil.which("taskset")

    def info(self) -> SandboxInfo:
        isolation = (
            "bubblewrap (read-only root, no network, private pids)"
            if self._bwrap
            else "rlimits only"
        )
        return SandboxInfo(
            backend="local",
            isolation=isolation,
            gpu=_host_has_gpu(),
            cpus=float(len(os.sched_getaffinity(0))),
        )

    @asynccontextmanager
    async def workspace(self) -> AsyncIterator[LocalWorkspace]:
        async with self._slots:
            root = await asyncio.to_thread(_make_workspace_dir, self.config.root)
            try:
                yield LocalWorkspace(root, self.config, self._bwrap, self._prlimit, self._taskset)
            finally:
                await asyncio.to_thread(_remove_tree, root)

    async def aclose(self) -> None:
        """Nothing to release: workspaces are removed as their contexts exit."""


class LocalWorkspace:
    """One temporary directory; commands run with it as their root."""

    def __init__(
        self,
        root: Path,
        config: LocalConfig,
        bwrap: str | None,
        prlimit: str | None,
        taskset: str | None = None,
    ) -> None:
        self.root = root
        self._config = config
        self._bwrap = bwrap
        self._prlimit = prlimit
        self._taskset = taskset

    async def write_files(self, files: Mapping[str, str | bytes]) -> None:
        for name in files:
            if len(safe_relative(name).parts) < 2:
                # As in the docker backend: commands see only the directories they are given.
                raise WorkspaceError(f"{name!r}: files go into a directory of the workspace")
        try:
            await asyncio.to_thread(self._write, files)
        except OSError as exc:
            raise WorkspaceError(f"cannot write files into the workspace: {exc}") from exc

    async def read_file(self, path: str, limit: int = DEFAULT_OUTPUT_LIMIT) -> bytes:
        safe_relative(path)
        try:
            return await asyncio.to_thread(self._read, path, limit)
        except OSError as exc:
            raise WorkspaceError(f"cannot read {path!r} from the workspace: {exc}") from exc

    def _inside(self, name: str) -> Path:
        """The host path for `name`, refusing symlinks (a job may plant them) that lead outside."""
        path = (self.root / safe_relative(name)).resolve()
        if path != self.root and self.root not in path.parents:
            raise WorkspaceError(f"path leaves the workspace through a symlink: {name!r}")
        return path

    def _write(self, files: Mapping[str, str | bytes]) -> None:
        for name, content in files.items():
            path = self._inside(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode() if isinstance(content, str) else content
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(data)

    def _read(self, name: str, limit: int) -> bytes:
        with open(self._inside(name), "rb") as f:
            return f.read(limit)

    async def run(self, command: Command) -> CommandResult:
        cwd = self.root / safe_relative(command.cwd) if command.cwd not in ("", ".") else self.root
        places = await asyncio.to_thread(self._places, command)
        try:
            return await self._run(command, cwd, places)
        finally:
            await asyncio.to_thread(_remove_places, places)

    def _places(self, command: Command) -> dict[str, Path]:
        """The command's fresh scratch (and tool-log) directory, and its `writes` made."""
        for top in command.writes:
            self._inside(top).mkdir(parents=True, exist_ok=True)
        # Beside the workspace, not in it: a command sees its own places only.
        parent = self._config.root
        places = {SCRATCH: _make_workspace_dir(parent, "parforge-scratch-")}
        if command.collect:
            places[COLLECT] = _make_workspace_dir(parent, "parforge-collect-")
        return places

    async def _run(self, command: Command, cwd: Path, places: dict[str, Path]) -> CommandResult:
        def fill(text: str) -> str:
            for token, path in places.items():
                text = text.replace(token, str(path))
            return text

        argv = self._wrap([fill(a) for a in command.argv], cwd, command, places)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(places[SCRATCH]),
            "TMPDIR": str(places[SCRATCH]),
            "LANG": "C.UTF-8",
        }
        env.update({k: fill(v) for k, v in command.env.items()})
        limit = min(command.output_limit, self._config.output_limit)
        if (self._bwrap or self._prlimit) and not _executable(command.argv[0], cwd, env["PATH"]):
            # The wrappers would exit 1 for it; a missing program is 127 on every backend.
            return CommandResult(
                exit_code=127, stderr=f"cannot execute {command.argv[0]}: not found"
            )
        busy = _host_busy()
        start = time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitProtocol(loop),
                *argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                preexec_fn=None if self._prlimit else self._limits,
            )
        except (FileNotFoundError, PermissionError) as exc:
            # A missing compiler or program is the job's result, like `sh: not found`.
            return CommandResult(exit_code=127, stderr=f"cannot execute {argv[0]}: {exc}")
        proc = asyncio.subprocess.Process(transport, protocol, loop)
        runner = _Runner(proc, protocol.exited, limit, self._config.memory_mb << 20)
        try:
            timed_out = await runner.wait(command.stdin.encode(), command.timeout_s)
        finally:
            transport.close()
        duration = time.monotonic() - start
        files = await asyncio.to_thread(_collected, places.get(COLLECT))
        return CommandResult(
            exit_code=self._exit_code(proc.returncode),
            stdout=runner.stdout.decode(errors="replace"),
            stderr=runner.stderr.decode(errors="replace") + runner.note,
            duration_s=duration,
            timed_out=timed_out,
            output_truncated=runner.truncated,
            out_of_memory=runner.out_of_memory,
            threads=runner.threads or None,
            host_busy_s=round(_host_busy() - busy, 3),
            files=files,
        )

    def _exit_code(self, code: int | None) -> int | None:
        # bwrap exits with 128 + N when the program died of signal N; report it like subprocess.
        if self._bwrap and code is not None and 128 < code <= 128 + 64:
            return 128 - code
        return code

    def _wrap(
        self, argv: list[str], cwd: Path, command: Command, places: dict[str, Path]
    ) -> list[str]:
        limits = []
        if self._prlimit:
            file_size = self._config.file_size_mb << 20
            limits = [self._prlimit, f"--fsize={file_size}", "--core=0", "--"]
        if command.cpus and self._taskset:
            allowed = sorted(os.sched_getaffinity(0))
            cpus = ",".join(map(str, allowed[: min(command.cpus, len(allowed))]))
            limits = [self._taskset, "-c", cpus, *limits]
        if not self._bwrap:
            return [*limits, *argv]
        # The workspace as the command may see it: an empty directory with its cwd's top-level
        # directory and `reads` bound read-only, `writes` and its own places read-write.
        root = self.root
        top = command.cwd.strip("/").split("/", 1)[0] if command.cwd not in ("", ".") else ""
        views = []
        for name in dict.fromkeys([top, *command.reads]):
            if name and name not in command.writes:
                views += ["--ro-bind", str(root / name), str(root / name)]
        for name in command.writes:
            views += ["--bind", str(root / name), str(root / name)]
        for path in places.values():
            views += ["--bind", str(path), str(path)]
        return [
            *limits,
            self._bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", str(root), *views,
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session",
            # Run by root, bwrap would leave the program every capability: enough to remount
            # the read-only root read-write.
            "--cap-drop", "ALL",
            "--chdir", str(cwd),
            *argv,
        ]  # fmt: skip

    def _limits(self) -> None:
        file_size = self._config.file_size_mb << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _ExitProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Also tells when the process itself exits: `Process.wait()` waits for the pipes to close
    as well, which a background child of the command may hold open for ever."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=1 << 16, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class _Runner:
    """Feeds stdin, drains capped output, watches memory and the clock for one process tree."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        exited: asyncio.Future[None],
        limit: int,
        memory_bytes: int,
    ) -> None:
        self.proc = proc
        self.exited = exited
        self.limit = limit
        self.memory_bytes = memory_bytes
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.truncated = False
        self.note = ""
        self.out_of_memory = False
        self.threads = 0

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
            await asyncio.wait_for(asyncio.shield(self.exited), timeout_s)
        except TimeoutError:
            timed_out = True
            self.kill()
            await self.exited
        finally:
            watch.cancel()
            # The command is over and its process group goes with it (its other descendants
            # were reparented when it died, so there is no tree left to walk). A process that
            # left the group may keep the pipes open: it gets a moment, not our time.
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            _, late = await asyncio.wait(pumps, timeout=_LINGER_S)
            for task in late:
                task.cancel()
        return timed_out

    def kill(self) -> None:
        """SIGKILL the running command's whole tree, groups included."""
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
        # Read to the end even past the limit: asyncio reports the process's exit only once its
        # pipes are closed, and a paused, unread pipe would never close.
        while chunk := await stream.read(65536):
            room = self.limit - len(sink)
            if len(chunk) > room:
                sink += chunk[: max(room, 0)]
                if not self.truncated:
                    self.truncated = True
                    self.note = f"\n[parforge: output passed {self.limit} bytes; process killed]"
                    self.kill()
            else:
                sink += chunk

    async def _watch_memory(self) -> None:
        while True:
            await asyncio.sleep(_MEMORY_POLL_S)
            pids = [self.proc.pid, *_descendants(self.proc.pid)]
            self.threads = max(self.threads, sum(_threads(pid) for pid in pids))
            if sum(_rss(pid) for pid in pids) > self.memory_bytes:
                self.note = (
                    f"\n[parforge: memory passed {self.memory_bytes >> 20} MiB; process killed]"
                )
                self.out_of_memory = True
                self.kill()
                return


def _executable(program: str, cwd: Path, path: str) -> bool:
    if "/" in program:
        return os.access(cwd / program, os.X_OK)
    return shutil.which(program, path=path) is not None


def _make_workspace_dir(parent: Path | None, prefix: str = "parforge-ws-") -> Path:
    # Resolved, because the symlink checks compare resolved paths.
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent)).resolve()


def _remove_tree(root: Path) -> None:
    """Delete a workspace, restoring permissions a job may have taken away."""

    def retry(func: Any, failed: str, _exc: Any) -> None:
        with suppress(OSError):
            os.chmod(os.path.dirname(failed), 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
            func(failed)

    shutil.rmtree(root, onerror=retry)


def _descendants(root: int) -> list[int]:
    """Every process below `root`, through /proc/<pid>/task/<tid>/children when the kernel has
    them (cost follows the tree), else by reading every process's parent (cost follows the host)."""
    if not _has_children_files():
        return _descendants_by_scan(root)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    children = [int(c) for c in f.read().split()]
            except (OSError, ValueError):
                continue
            found += children
            todo += children
    return found


@functools.cache
def _has_children_files() -> bool:
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _descendants_by_scan(root: int) -> list[int]:
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


def _threads(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        return int(data[data.rindex(b")") + 2 :].split()[17])
    except (OSError, IndexError, ValueError):
        return 0


def _host_busy() -> float:
    """Seconds of CPU the host has spent busy so far (all CPUs)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / _CLOCK_TICKS


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _collected(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    found = {}
    for entry in sorted(path.iterdir()):
        if entry.is_file() and not entry.is_symlink():
            found[entry.name] = entry.read_bytes()[: 4 << 20].decode(errors="replace")
    return found


def _remove_places(places: dict[str, Path]) -> None:
    for path in places.values():
        _remove_tree(path)


def _host_has_gpu() -> bool:
    return Path("/dev/nvidia0").exists() or Path("/dev/nvidiactl").exists()

"""PID 1 of a ParForge sandbox container: runs the host's requests, reaps orphans, wipes jobs.

Standard library only; copied into the image and run there by `python3 -I`, never imported by
the project. The host side is `sandbox/backends/channel.py`.

Why an agent rather than one `docker exec` per command: measured on a 2-core host, an exec round
trip costs ~65 ms (runc builds a new process in the container's namespaces each time) and a
`put_archive` ~110 ms, while a whole small OpenMP verification (two compiles, a TSan build,
eight runs) takes ~0.6 s on the host. The agent forks programs itself (~1-2 ms) and receives
files on the attach connection that is already open.

Why it is PID 1 (and not a bash loop or tini with the agent as a child): PID 1 of a PID
namespace receives no signal from inside the namespace unless it installed a handler, so a job's
`kill -9 -1` or a targeted kill cannot take it down; from PID 1, `kill(-1, SIGKILL)` reaches every
other process in the container, which is the whole of the between-jobs clean-up; and orphans are
reparented to it, so it is the one that must reap them. It marks itself non-dumpable so that a job,
running as the same user, can neither ptrace it nor open its /proc files: the agent outlives jobs
in a warm pool and must not carry anything from one job into the next.

Protocol: one JSON object per line on stdin (requests) and stdout (responses); bytes as base64.

    {"id": 3, "op": "run", "argv": [...], "cwd": "src", "env": {...}, "stdin": "<b64>",
     "timeout": 10.0, "limit": 1048576}
      -> {"id": 3, "ok": true, "exit_code": 0, "stdout": "<b64>", "stderr": "<b64>",
          "duration_s": 0.01, "timed_out": false, "output_truncated": false}
    {"id": 4, "op": "write", "files": {"a.c": "<b64>"}}           -> {"id": 4, "ok": true}
    {"id": 5, "op": "read", "path": "out.txt", "limit": 65536}   -> {"id": 5, "ok": true, "data": "<b64>"}
    {"id": 6, "op": "wipe"}                                       -> {"id": 6, "ok": true}
    a request that cannot be served                               -> {"id": n, "ok": false, "error": "..."}

On start it says {"id": 0, "ok": true, "ready": true, "pid": ..., "uid": ...}.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from contextlib import suppress
from typing import Any

WORK = "/work"
SCRUBBED = ("/work", "/tmp", "/dev/shm")
LINGER_S = 0.5
"""After a command's process ends and its group is killed, how long a process that left the group
may keep the output pipes open before the agent stops listening (the wipe kills it later)."""
WIPE_DEADLINE_S = 10.0
CHUNK = 65536
OOM_COUNTERS = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")
"""cgroup v2 and v1 files whose `oom_kill N` line counts the container's out-of-memory kills."""
OOM_NOTE = "\n[parforge: the sandbox's memory limit was reached; process killed]"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def oom_kills() -> int:
    """How many processes the kernel has killed in this container for want of memory."""
    for path in OOM_COUNTERS:
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def inside(root: str, rel: str) -> str:
    """`rel` joined to `root`, refusing anything that resolves outside `root`."""
    if os.path.isabs(rel) or ".." in rel.split("/"):
        raise ValueError(f"path must be relative and stay inside the workspace: {rel!r}")
    path = os.path.realpath(os.path.join(root, rel))
    if path != root and not path.startswith(root + "/"):
        raise ValueError(f"path leaves the workspace: {rel!r}")
    return path


class Job:
    """One running command: its process group, captured output and limits."""

    def __init__(
        self, rid: int, proc: subprocess.Popen[bytes], req: dict[str, Any], start: float
    ) -> None:
        self.rid = rid
        self.proc = proc
        self.limit = int(req.get("limit", 1 << 20))
        self.start = start
        self.oom_kills = oom_kills()
        self.deadline = self.start + float(req.get("timeout", 60.0))
        self.end: float | None = None
        self.exit_code: int | None = None
        self.linger_until: float | None = None
        self.buffers = {"stdout": bytearray(), "stderr": bytearray()}
        self.open = 2
        self.stdin = memoryview(base64.b64decode(req.get("stdin", "")))
        self.timed_out = False
        self.truncated = False

    def kill(self) -> None:
        """SIGKILL the command's process group (it leads its own session), and the process itself
        while it is not reaped, in case it left its group."""
        targets = (
            [-self.proc.pid] if self.exit_code is not None else [-self.proc.pid, self.proc.pid]
        )
        for target in targets:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(target, signal.SIGKILL)

    def result(self) -> dict[str, Any]:
        end = self.end if self.end is not None else time.monotonic()
        killed = self.exit_code == -signal.SIGKILL and not (self.timed_out or self.truncated)
        if killed and oom_kills() > self.oom_kills:  # another job's OOM at that moment reads alike
            self.buffers["stderr"] += OOM_NOTE.encode()
        if self.truncated:
            self.buffers["stderr"] += (
                f"\n[parforge: output passed {self.limit} bytes; process killed]".encode()
            )
        return {
            "id": self.rid,
            "ok": True,
            "exit_code": self.exit_code,
            "stdout": b64(bytes(self.buffers["stdout"])),
            "stderr": b64(bytes(self.buffers["stderr"])),
            "duration_s": end - self.start,
            "timed_out": self.timed_out,
            "output_truncated": self.truncated,
        }


class Agent:
    """A single-threaded event loop over stdin, the jobs' pipes and SIGCHLD."""

    def __init__(self) -> None:
        self.sel = selectors.DefaultSelector()
        self.jobs: dict[int, Job] = {}
        self.inbox = bytearray()
        self.base_env = {**os.environ, "HOME": WORK, "LANG": os.environ.get("LANG", "C.UTF-8")}
        self.running = True

    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        for fd in (0, wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.sel.register(0, selectors.EVENT_READ, ("stdin", None))
        self.sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
        self.send({"id": 0, "ok": True, "ready": True, "pid": os.getpid(), "uid": os.getuid()})
        while self.running:
            for key, _ in self.sel.select(self.next_timeout()):
                kind, job = key.data
                if kind == "stdin":
                    self.on_stdin()
                elif kind == "wake":
                    os.read(wake_r, CHUNK)
                elif kind == "feed":
                    self.feed(job, key.fileobj)
                else:
                    self.drain(job, key.fileobj, kind)
            self.reap()
            self.enforce_deadlines()

    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        while data:
            try:
                data = data[os.write(1, data) :]
            except BlockingIOError:
                time.sleep(0.001)

    def next_timeout(self) -> float | None:
        moments = [
            j.deadline for j in self.jobs.values() if j.exit_code is None and not j.timed_out
        ]
        moments += [j.linger_until for j in self.jobs.values() if j.linger_until is not None]
        return max(0.0, min(moments) - time.monotonic()) if moments else None

    def on_stdin(self) -> None:
        chunk = os.read(0, CHUNK)
        if not chunk:  # the host closed the container's stdin: nobody is left to serve
            self.running = False
            return
        self.inbox += chunk
        while (end := self.inbox.find(b"\n")) >= 0:
            line = bytes(self.inbox[:end])
            del self.inbox[: end + 1]
            self.handle(line)

    def handle(self, line: bytes) -> None:
        rid = 0
        try:
            req = json.loads(line)
            rid = int(req["id"])
            op = req["op"]
            if op == "run":
                self.run(rid, req)
            elif op == "write":
                self.write(req["files"])
                self.send({"id": rid, "ok": True})
            elif op == "read":
                self.send(
                    {"id": rid, "ok": True, "data": b64(self.read(req["path"], req["limit"]))}
                )
            elif op == "wipe":
                self.wipe()
                self.send({"id": rid, "ok": True})
            else:
                raise ValueError(f"unknown op {op!r}")
        except Exception as exc:
            self.send({"id": rid, "ok": False, "error": f"{type(exc).__name__}: {exc}"})

    def run(self, rid: int, req: dict[str, Any]) -> None:
        argv = [str(a) for a in req["argv"]]
        env = {**self.base_env, **req.get("env", {})}
        has_stdin = bool(req.get("stdin"))
        start = time.monotonic()  # Popen returns after the exec: the program may already run
        try:
            cwd = inside(WORK, req.get("cwd", ".") or ".")
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE if has_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            # A missing program or directory is the job's result, like `sh: not found`.
            message = f"cannot execute {argv[0] if argv else '(empty argv)'}: {exc}"
            self.send(
                {
                    "id": rid,
                    "ok": True,
                    "exit_code": 127,
                    "stderr": b64(message.encode()),
                    "duration_s": 0.0,
                }
            )
            return
        # Under memory pressure the kernel must pick a job's process, never the agent: raising a
        # child's OOM score needs no privilege (lowering the agent's would).
        with suppress(OSError), open(f"/proc/{proc.pid}/oom_score_adj", "w") as f:
            f.write("1000")
        job = Job(rid, proc, req, start)
        self.jobs[proc.pid] = job
        assert proc.stdout is not None and proc.stderr is not None
        # Pipes are registered and closed as file objects so that Popen never closes a number
        # that has since been reused.
        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            os.set_blocking(stream.fileno(), False)
            self.sel.register(stream, selectors.EVENT_READ, (name, job))
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            self.sel.register(proc.stdin, selectors.EVENT_WRITE, ("feed", job))

    def feed(self, job: Job, pipe: Any) -> None:
        try:
            job.stdin = job.stdin[os.write(pipe.fileno(), job.stdin[:CHUNK]) :]
        except BlockingIOError:
            return
        except OSError:  # the program closed its stdin early: that is its business
            job.stdin = memoryview(b"")
        if not job.stdin:
            self.sel.unregister(pipe)
            pipe.close()

    def drain(self, job: Job, pipe: Any, name: str) -> None:
        try:
            chunk = os.read(pipe.fileno(), CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            self.sel.unregister(pipe)
            pipe.close()
            job.open -= 1
            self.maybe_finish(job)
            return
        sink = job.buffers[name]
        room = job.limit - len(sink)
        if len(chunk) > room:
            sink += chunk[: max(room, 0)]
            if not job.truncated:
                job.truncated = True
                job.kill()
        else:
            sink += chunk

    def reap(self) -> None:
        """Collect every exited child: the jobs' processes and orphans reparented to PID 1."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.get(pid)
            if job is None:
                continue
            job.exit_code = os.waitstatus_to_exitcode(status)
            job.proc.returncode = job.exit_code  # reaped here; Popen must not wait for it again
            job.end = time.monotonic()
            job.kill()  # background children of the command end with it, as on the local backend
            job.linger_until = job.end + LINGER_S
            self.maybe_finish(job)

    def enforce_deadlines(self) -> None:
        now = time.monotonic()
        for job in list(self.jobs.values()):
            if job.exit_code is None and now >= job.deadline and not job.timed_out:
                job.timed_out = True
                job.kill()
            elif job.linger_until is not None and now >= job.linger_until:
                job.open = 0
                self.maybe_finish(job)

    def maybe_finish(self, job: Job) -> None:
        if job.exit_code is None or job.open > 0 or self.jobs.get(job.proc.pid) is not job:
            return
        for key in list(self.sel.get_map().values()):
            if key.data[1] is job:  # pipes held open by a straggler, or an unfinished stdin feed
                self.sel.unregister(key.fileobj)
                key.fileobj.close()  # type: ignore[union-attr]
        del self.jobs[job.proc.pid]
        if not self.jobs:
            # No command is running: whatever process is left was started by one that ended
            # (a double-forked or setsid daemon escapes its process group, not PID 1's kill).
            self.sweep()
        self.send(job.result())

    def write(self, files: dict[str, str]) -> None:
        for rel, data in files.items():
            path = inside(WORK, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(base64.b64decode(data))

    def read(self, rel: str, limit: int) -> bytes:
        with open(inside(WORK, rel), "rb") as f:
            return f.read(int(limit))

    def sweep(self) -> None:
        """SIGKILL every process but this one (PID 1 only). No waiting: a killed process runs
        no more code, and a large one (TSan maps terabytes) may take seconds to be torn down."""
        if os.getpid() == 1:
            with suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)
            self.reap()

    def kill_all(self) -> None:
        """Kill every other process and wait until they are gone."""
        deadline = time.monotonic() + WIPE_DEADLINE_S
        while True:
            try:
                os.kill(-1, signal.SIGKILL)  # from PID 1: every other process in the container
            except ProcessLookupError:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("processes kept appearing after SIGKILL")
            self.reap()
            time.sleep(0.001)  # killed but not yet dead, or not yet reparented to us
        self.reap()

    def wipe(self) -> None:
        """Kill every other process in the container, remove its System V IPC objects and
        empty the writable places."""
        if os.getpid() != 1:
            raise RuntimeError("wipe is only allowed as PID 1 of a sandbox container")
        self.kill_all()
        remove_ipc()
        for job in list(self.jobs.values()):
            job.linger_until = time.monotonic()
        self.enforce_deadlines()
        for top in SCRUBBED:
            if os.path.isdir(top):
                for entry in os.scandir(top):
                    remove(entry.path)
                if os.listdir(top):
                    raise RuntimeError(f"could not empty {top}")


def remove(path: str) -> None:
    """Delete a file or a tree, restoring permissions a job may have taken away."""

    def retry(func: Any, failed: str, _exc: Any) -> None:
        os.chmod(os.path.dirname(failed), 0o700)
        if os.path.isdir(failed) and not os.path.islink(failed):
            os.chmod(failed, 0o700)
        func(failed)

    if os.path.isdir(path) and not os.path.islink(path):
        os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=retry)
    else:
        os.unlink(path)


IPC_TABLES = (
    ("/proc/sysvipc/shm", "shmctl"),
    ("/proc/sysvipc/msg", "msgctl"),
    ("/proc/sysvipc/sem", "semctl"),
)
IPC_RMID = 0


def remove_ipc() -> None:
    """Remove the container's System V shared memory, message queues and semaphores (its own
    IPC namespace): a job must not leave data or a signalling channel for the next one.
    Not `kernel.shm_rmid_forced` instead: Open MPI's shared-memory start-up needs a segment to
    outlive its creator's detach, and its runs hang with it."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for table, call in IPC_TABLES:
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            if call == "semctl":
                getattr(libc, call)(ipc_id, 0, IPC_RMID)
            else:
                getattr(libc, call)(ipc_id, IPC_RMID, None)
        with open(table) as f:
            if f.read().splitlines()[1:]:
                raise RuntimeError(f"could not remove every object of {table}")


def non_dumpable() -> None:
    """Forbid ptrace and /proc/1/mem access by processes of the same user."""
    import ctypes

    pr_set_dumpable = 4
    if ctypes.CDLL(None, use_errno=True).prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.getpid() == 1:
        non_dumpable()
    try:
        Agent().serve()
    except Exception as exc:
        print(f"parforge agent: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        raise


if __name__ == "__main__":
    main()

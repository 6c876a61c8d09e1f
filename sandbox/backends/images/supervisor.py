"""PID 1 of a ParForge sandbox container: runs the host's requests, each command as a process
tree of its own identity, and wipes jobs.

Standard library only; copied into the image and run there by `python3 -I`, never imported by
the project. The host side is `sandbox/backends/channel.py`.

Why an supervisor rather than one `docker exec` per command: measured on a 2-core host, an exec round
trip costs ~65 ms (runc builds a new process in the container's namespaces each time) and a
`put_archive` ~110 ms, while a whole small OpenMP verification takes ~0.6 s on the host. The
supervisor forks programs itself (~1-2 ms) and receives files on the attach connection.

Why it is PID 1: PID 1 of a PID namespace receives no signal from inside the namespace unless it
installed a handler, orphans are reparented to it (so it reaps, and accounts for, every process
that outlives its parent), and from PID 1 `kill(-1, SIGKILL)` reaches every other process, which
is the whole of the between-jobs clean-up. It is non-dumpable: no job can ptrace it or open its
/proc files.

**Every command runs as a fresh identity.** The supervisor runs as root with six capabilities
(CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETUID, SETGID) under no-new-privileges, and starts each
command as a uid (and gid) no other command has had in this container, with no capabilities.
Processes cannot change their uid, so that uid *is* the command's process tree: a `setsid`,
double-forked daemon is still found, and the command ends only when no process of its uid is
left. Its wall time runs until then, and output written by a straggler is collected (and
timed); at the time-out every process of the uid is killed. Then its private places go:

- a fresh scratch directory (HOME and TMPDIR, `{scratch}` in argv and env), removed after;
- a fresh tool-log directory when asked (`{collect}`): where the checkers (ThreadSanitizer,
  compute-sanitizer) write their reports. Nobody but the supervisor can list it; its files come back
  with the result and are removed;
- its files in /tmp and /dev/shm, and its System V IPC objects (POSIX message queues cannot be
  created: the container's `fs.mqueue.queues_max` is 0).

**The workspace is sealed.** Files the host writes are root's. Each top-level directory of
/work has a group of its own and mode 0750; a command may read its cwd's top-level directory and
those it names in `reads`, and may write only those it names in `writes` (owned by its uid while
it runs, then given back to root, read-only, with every executable's hash recorded). A program
run after its build can therefore change neither its binary nor anything beside it, the
reference's directory is out of the candidate's reach, and state cannot survive between runs
except through the host. A sealed executable named in a command's argv is hashed again before
the command starts.

**Landlock** (where the kernel has it; the greeting says which ABI): each command may read the
system directories, /proc and /sys and its own workspace directories, write only its scratch,
tool-log and `writes` directories and /dev/shm (libomp registers itself there), use the few
harmless devices, and may neither signal nor connect to processes outside its own command.

**Measurements**, taken from outside the program: the CPU time of the whole tree (the rusage of
every process of the uid, reaped by its parent or by the supervisor), the peak thread count of the
tree (sampled), and the host's busy CPU time over the same interval (/proc/stat is the host's),
from which the host tells how much other load ran beside the command. `cpus: n` pins the
command to n CPUs.

Protocol: one JSON object per line on stdin (requests) and stdout (responses); bytes as base64.

    {"id": 3, "op": "run", "argv": [...], "cwd": "cand", "env": {...}, "stdin": "<b64>",
     "timeout": 10.0, "limit": 1048576, "reads": [], "writes": [], "collect": false, "cpus": null}
      -> {"id": 3, "ok": true, "exit_code": 0, "stdout": "<b64>", "stderr": "<b64>",
          "duration_s": 0.01, "timed_out": false, "output_truncated": false, "cpu_s": 0.01,
          "threads": 1, "host_busy_s": 0.02, "files": {"name": "<b64>"}}
    {"id": 4, "op": "write", "files": {"a.c": "<b64>"}}           -> {"id": 4, "ok": true}
    {"id": 5, "op": "read", "path": "out.txt", "limit": 65536}   -> {"id": 5, "ok": true, "data": "<b64>"}
    {"id": 6, "op": "wipe"}                                       -> {"id": 6, "ok": true}
    a request that cannot be served                               -> {"id": n, "ok": false, "error": "..."}

On start it says {"id": 0, "ok": true, "ready": true, "pid": ..., "uid": ..., "landlock": abi,
"cpus": [...]}.
"""

from __future__ import annotations

import base64
import ctypes
import hashlib
import json
import os
import secrets
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import time
from contextlib import suppress
from typing import Any

WORK = "/work"
SCRATCH = f"{WORK}/.scratch"
COLLECT = f"{WORK}/.collect"
PRIVATE = (".scratch", ".collect")
SHARED_TMP = ("/tmp", "/dev/shm")
MQUEUE = "/dev/mqueue"
SCRUBBED = (WORK, "/tmp", "/dev/shm", MQUEUE)
FIRST_UID, UID_COUNT = 20000, 20000
"""Command identities: a fresh uid (and gid of the same number) per command, cycled."""
FIRST_DIR_GID = 50000
"""Group of each top-level workspace directory, in order of creation."""
SAMPLE_S = 0.01
"""How often a running command's main process is sampled for its thread count."""
SCAN_S = 0.1
"""How often the whole tree is looked for while the main process runs."""
COLLECT_LIMIT = 4 << 20
"""Bytes of tool logs returned per command."""
WIPE_DEADLINE_S = 10.0
CHUNK = 65536
OOM_COUNTERS = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")
"""cgroup v2 and v1 files whose `oom_kill N` line counts the container's out-of-memory kills."""
OOM_NOTE = "\n[parforge: the sandbox's memory limit was reached; process killed]"
SYSTEM_READ = ("/usr", "/etc", "/proc", "/sys", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/opt")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DEVICE_PREFIXES = ("nvidia",)
"""GPU device files, given read, write and ioctl."""
SHARED_WRITE = ("/dev/shm",)

libc = ctypes.CDLL(None, use_errno=True)


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


def host_busy() -> float:
    """Seconds of CPU the whole host has spent busy so far (/proc/stat is not namespaced)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def processes() -> dict[int, list[tuple[int, int]]]:
    """Live (not zombie) processes by real uid: [(pid, threads)]."""
    found: dict[int, list[tuple[int, int]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                text = f.read()
        except OSError:
            continue
        fields = {}
        for line in text.split(b"\n"):
            key, _, value = line.partition(b":")
            if key in (b"State", b"Uid", b"Threads"):
                fields[key] = value.split()
        if not fields.get(b"State") or fields[b"State"][0] == b"Z" or b"Uid" not in fields:
            continue
        threads = int(fields[b"Threads"][0]) if fields.get(b"Threads") else 1
        found.setdefault(int(fields[b"Uid"][0]), []).append((int(name), threads))
    return found


def main_threads(pid: int) -> int:
    """The thread count of one process (0 when it is gone or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return 0
    rest = data[data.rindex(b")") + 2 :].split()
    return 0 if rest[0] == b"Z" else int(rest[17])


def as_identity(uid: int, action: Any) -> None:
    """Run `action()` in a child process that has become `uid` (and nothing else), and wait."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            action()
        except BaseException:
            code = 1
        os._exit(code)
    os.waitpid(pid, 0)


def kill_identity(uid: int) -> None:
    """SIGKILL every process of `uid`.

    From a child that has become `uid`, kill(-1) reaches them all at once: the kernel sends it
    under its task-list lock and a process with a fatal signal pending cannot fork, so nothing
    of the uid slips through. A fork bomb may leave no process to spare for that child; then
    the uid's processes are killed one by one until none is left (each pass frees the slots
    the next fork would need, and the caller looks again)."""
    try:
        as_identity(uid, lambda: os.kill(-1, signal.SIGKILL))
        return
    except OSError:
        pass
    for _ in range(50):
        pids = [pid for pid, _ in processes().get(uid, [])]
        if not pids:
            return
        for pid in pids:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


# ---- Landlock --------------------------------------------------------------------------------

_LANDLOCK_CREATE, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT = 444, 445, 446
_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1, 2, 4, 8
_TRUNCATE, _IOCTL_DEV = 1 << 14, 1 << 15
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock (or where seccomp hides it)."""
    version = libc.syscall(_LANDLOCK_CREATE, None, 0, 1)
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute ... make_sym
    if abi >= 2:
        rights |= 1 << 13  # refer
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def landlock(abi: int, reads: list[str], writes: list[str], devices: list[str]) -> None:
    """Restrict the calling process (and what it execs) to these paths. Called in the child
    between fork and exec; any failure aborts the exec, so a command never runs unconfined
    where Landlock was promised."""
    handled = _fs_rights(abi)
    file_rights = handled & (_EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV)
    scoped = (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0
    attr = _RulesetAttr(handled, 0, scoped)
    size = ctypes.sizeof(attr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = libc.syscall(_LANDLOCK_CREATE, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    rules = [(p, _EXECUTE | _READ_FILE | _READ_DIR) for p in reads]
    rules += [(p, handled) for p in writes] + [(p, file_rights) for p in devices]
    for path, rights in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # not on this image
        try:
            is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
            allowed = rights if is_dir else rights & file_rights
            rule = _PathBeneath(allowed, fd)
            if libc.syscall(_LANDLOCK_ADD_RULE, ruleset, _PATH_BENEATH, ctypes.byref(rule), 0):
                raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
        finally:
            os.close(fd)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "no_new_privs")
    if libc.syscall(_LANDLOCK_RESTRICT, ruleset, 0) != 0:
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(ruleset)


# ---- one command -----------------------------------------------------------------------------


class Command:
    """One running command: its identity, process tree, captured output, limits, places."""

    def __init__(self, rid: int, req: dict[str, Any], uid: int, start: float) -> None:
        self.rid = rid
        self.uid = uid
        self.limit = int(req.get("limit", 1 << 20))
        self.start = start
        self.busy_start = host_busy()
        self.oom_kills = oom_kills()
        self.out_of_memory = False
        self.deadline = start + float(req.get("timeout", 60.0))
        self.proc: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None
        self.main_end: float | None = None
        self.end: float | None = None
        self.buffers = {"stdout": bytearray(), "stderr": bytearray()}
        self.stdin = memoryview(base64.b64decode(req.get("stdin", "")))
        self.timed_out = False
        self.truncated = False
        self.cpu_s = 0.0
        self.threads = 0
        self.next_scan = start
        self.scratch = f"{SCRATCH}/{uid}"
        self.collect: str | None = None
        self.writes: list[str] = []
        self.files: dict[str, str] = {}
        self.busy_s = 0.0

    def sample(self) -> None:
        """Peak threads of the main process (the whole tree is counted by `Agent.tick`)."""
        if self.proc is not None and self.exit_code is None:
            self.threads = max(self.threads, main_threads(self.proc.pid))

    def result(self) -> dict[str, Any]:
        end = self.end if self.end is not None else time.monotonic()
        # A failed command during which the container's OOM count rose: the kernel killed one of
        # its processes (the main one, or a child such as an MPI rank whose launcher then exits
        # 137). Another job's OOM at that moment reads alike; the limit is shared either way.
        failed = self.exit_code != 0 and not (self.timed_out or self.truncated)
        self.out_of_memory = failed and oom_kills() > self.oom_kills
        if self.out_of_memory:
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
            "out_of_memory": self.out_of_memory,
            "cpu_s": round(self.cpu_s, 6),
            "threads": self.threads,
            "host_busy_s": round(self.busy_s, 3),
            "files": self.files,
        }


class Agent:
    """A single-threaded event loop over stdin, the jobs' pipes, SIGCHLD and a sampling tick."""

    def __init__(self) -> None:
        self.sel = selectors.DefaultSelector()
        self.jobs: dict[int, Command] = {}
        """Running commands by uid."""
        self.inbox = bytearray()
        self.base_env = {**os.environ, "LANG": os.environ.get("LANG", "C.UTF-8")}
        self.running = True
        self.next_uid = FIRST_UID
        self.dir_gids: dict[str, int] = {}
        self.sealed: dict[str, tuple[int, int, int, str]] = {}
        """Executables of sealed directories: path -> (inode, size, mtime_ns, sha256)."""
        self.landlock = landlock_abi()
        self.cpus = sorted(os.sched_getaffinity(0))
        self.devices = list(DEVICES) + [
            f"/dev/{name}" for name in os.listdir("/dev") if name.startswith(DEVICE_PREFIXES)
        ]

    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        for fd in (0, wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.sel.register(0, selectors.EVENT_READ, ("stdin", None))
        self.sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
        self.prepare_places()
        self.send(
            {
                "id": 0,
                "ok": True,
                "ready": True,
                "pid": os.getpid(),
                "uid": os.getuid(),
                "landlock": self.landlock,
                "cpus": self.cpus,
            }
        )
        while self.running:
            for key, _ in self.sel.select(self.next_timeout()):
                if self.sel.get_map().get(key.fd) is not key:
                    # An earlier event of this wake-up (a wipe, a drained pipe) closed it, and its
                    # number may even be another pipe's by now.
                    continue
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
            self.tick()

    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        while data:
            try:
                data = data[os.write(1, data) :]
            except BlockingIOError:
                time.sleep(0.001)

    def next_timeout(self) -> float | None:
        if not self.jobs:
            return None
        now = time.monotonic()
        moments = [now + SAMPLE_S]
        for job in self.jobs.values():
            if not job.timed_out:
                moments.append(job.deadline)
            if job.exit_code is not None:
                moments.append(job.next_scan)
        return max(0.0, min(moments) - now)

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

    # ---- places --------------------------------------------------------------------------

    def prepare_places(self) -> None:
        """The supervisor's own directories in /work: scratch and tool-log parents, traversable but
        not listable by commands."""
        for path in (SCRATCH, COLLECT):
            os.makedirs(path, mode=0o711, exist_ok=True)
            os.chmod(path, 0o711)

    def top_dir(self, rel: str) -> str:
        """The top-level workspace directory a relative path lies in ("" for the root)."""
        top = rel.strip("/").split("/", 1)[0]
        return "" if top in ("", ".") else top

    def dir_gid(self, top: str) -> int:
        if top not in self.dir_gids:
            self.dir_gids[top] = FIRST_DIR_GID + len(self.dir_gids)
        return self.dir_gids[top]

    def ensure_top(self, top: str) -> str:
        """Create a top-level directory (root's, its own group, 0750) if it is missing."""
        if top in PRIVATE:
            raise ValueError(f"{top!r} is the sandbox's own directory")
        path = inside(WORK, top)
        if not os.path.isdir(path):
            os.mkdir(path, 0o750)
        os.lchown(path, 0, self.dir_gid(top))
        os.chmod(path, 0o750)
        return path

    def write(self, files: dict[str, str]) -> None:
        for rel, data in files.items():
            top = self.top_dir(rel)
            if "/" not in rel.strip("/"):
                # Commands may read only the directories they are given (see `run`).
                raise ValueError(f"{rel!r}: files go into a directory of the workspace")
            self.ensure_top(top)
            gid = self.dir_gid(top)
            path = inside(WORK, rel)
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                os.makedirs(parent, 0o750)
                walk = parent
                while walk != WORK:  # the directories just made join the top one's group
                    os.lchown(walk, 0, gid)
                    walk = os.path.dirname(walk)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o640)
            with os.fdopen(fd, "wb") as f:
                os.fchown(f.fileno(), 0, gid)
                os.fchmod(f.fileno(), 0o640)
                f.write(base64.b64decode(data))
            self.sealed.pop(path, None)

    def read(self, rel: str, limit: int) -> bytes:
        with open(inside(WORK, rel), "rb") as f:
            return f.read(int(limit))

    def unseal(self, top: str, uid: int) -> str:
        """Give a top-level directory (and what is in it) to a command's uid while it runs."""
        path = self.ensure_top(top)
        for _root, dirs, files, fd in os.fwalk(path, follow_symlinks=False):
            for name in dirs + files:
                os.chown(name, uid, self.dir_gid(top), dir_fd=fd, follow_symlinks=False)
        os.lchown(path, uid, self.dir_gid(top))
        os.chmod(path, 0o750)
        for sealed in [p for p in self.sealed if p.startswith(path + "/")]:
            del self.sealed[sealed]
        return path

    def seal(self, top: str) -> None:
        """Give a directory back to root, read-only, and record its executables' hashes."""
        path = inside(WORK, top)
        gid = self.dir_gid(top)
        os.lchown(path, 0, gid)
        os.chmod(path, 0o750)
        for root, dirs, files, fd in os.fwalk(path, follow_symlinks=False):
            for name in dirs:
                os.chown(name, 0, gid, dir_fd=fd, follow_symlinks=False)
                if not os.path.islink(os.path.join(root, name)):
                    os.chmod(name, 0o750, dir_fd=fd)
            for name in files:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    os.chown(name, 0, gid, dir_fd=fd, follow_symlinks=False)
                elif not stat.S_ISREG(info.st_mode):
                    os.unlink(name, dir_fd=fd)  # a fifo or socket a command left
                else:
                    executable = bool(info.st_mode & 0o111)
                    os.chown(name, 0, gid, dir_fd=fd, follow_symlinks=False)
                    os.chmod(name, 0o750 if executable else 0o640, dir_fd=fd)
                    if executable:
                        full = os.path.join(root, name)
                        self.sealed[full] = self.fingerprint(full)

    @staticmethod
    def fingerprint(path: str) -> tuple[int, int, int, str]:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            info = os.fstat(fd)
            digest = hashlib.sha256()
            with os.fdopen(os.dup(fd), "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            return info.st_ino, info.st_size, info.st_mtime_ns, digest.hexdigest()
        finally:
            os.close(fd)

    def check_sealed(self, argv: list[str], cwd: str) -> None:
        """Refuse to start a command whose sealed executable changed since it was sealed."""
        for arg in argv:
            if "/" not in arg:
                continue
            path = os.path.realpath(os.path.join(cwd, arg))
            expected = self.sealed.get(path)
            if expected is not None and self.fingerprint(path) != expected:
                raise ValueError(f"{arg} changed after it was built and sealed")

    # ---- running -------------------------------------------------------------------------

    def fresh_uid(self) -> int:
        while True:
            uid = self.next_uid
            self.next_uid = FIRST_UID + (self.next_uid - FIRST_UID + 1) % UID_COUNT
            if uid not in self.jobs:
                return uid

    def run(self, rid: int, req: dict[str, Any]) -> None:
        argv = [str(a) for a in req["argv"]]
        uid = self.fresh_uid()
        start = time.monotonic()
        job = Command(rid, req, uid, start)
        try:
            cwd = inside(WORK, req.get("cwd", ".") or ".")
            tops = {self.top_dir(os.path.relpath(cwd, WORK))} | {
                self.top_dir(r) for r in req.get("reads", [])
            }
            writes = [self.top_dir(w) for w in req.get("writes", [])]
            if "" in writes:
                raise ValueError("a command may not write the workspace's root")
            tops.discard("")
            for top in tops:
                if top in PRIVATE:
                    raise ValueError(f"{top!r} is the sandbox's own directory")
                self.ensure_top(top)
            os.mkdir(job.scratch, 0o700)
            os.chown(job.scratch, uid, uid)
            places = {"{scratch}": job.scratch}
            if req.get("collect"):
                job.collect = f"{COLLECT}/{secrets.token_hex(8)}"
                os.mkdir(job.collect)
                os.chmod(job.collect, 0o1733)  # anyone may create a file; nobody may list
                places["{collect}"] = job.collect
            for top in writes:
                self.unseal(top, uid)
                job.writes.append(top)
            self.check_sealed(argv, cwd)
        except (OSError, ValueError) as exc:
            self.cleanup(job)
            raise ValueError(f"cannot prepare the command: {exc}") from exc
        argv = [substitute(a, places) for a in argv]
        env = {**self.base_env, "HOME": job.scratch, "TMPDIR": job.scratch}
        env.update({k: substitute(str(v), places) for k, v in req.get("env", {}).items()})
        groups = sorted({self.dir_gid(t) for t in tops | set(writes)})
        reads = [p for p in SYSTEM_READ if os.path.exists(p)]
        reads += [inside(WORK, t) for t in tops]
        rw = [job.scratch, *SHARED_WRITE, *(inside(WORK, t) for t in writes)]
        rw += [job.collect] if job.collect else []
        cpus = req.get("cpus")
        pinned = self.cpus[: max(1, min(int(cpus), len(self.cpus)))] if cpus else None
        abi = self.landlock

        def confine() -> None:
            if pinned:
                os.sched_setaffinity(0, pinned)
            if abi:
                landlock(abi, reads, rw, self.devices)

        has_stdin = bool(job.stdin)
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE if has_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                # Every descriptor the supervisor holds is close-on-exec (`no_inheritance`): closing
                # the rest one by one would cost a child that has already become `uid` (and so
                # may not list /proc/self/fd) a close() per possible descriptor, 20,000 here.
                close_fds=False,
                user=uid,
                group=uid,
                extra_groups=groups,
                preexec_fn=confine,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            # A missing program or directory is the job's result, like `sh: not found`.
            self.cleanup(job)
            message = f"cannot execute {argv[0] if argv else '(empty argv)'}: {exc}"
            self.send({"id": rid, "ok": True, "exit_code": 127, "stderr": b64(message.encode())})
            return
        # Under memory pressure the kernel must pick a job's process, never the supervisor.
        with suppress(OSError), open(f"/proc/{proc.pid}/oom_score_adj", "w") as f:
            f.write("1000")
        job.proc = proc
        self.jobs[uid] = job
        assert proc.stdout is not None and proc.stderr is not None
        # Pipes are registered and closed as file objects so that Popen never closes a number
        # that has since been reused.
        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            os.set_blocking(stream.fileno(), False)
            self.sel.register(stream, selectors.EVENT_READ, (name, job))
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            self.sel.register(proc.stdin, selectors.EVENT_WRITE, ("feed", job))

    def feed(self, job: Command, pipe: Any) -> None:
        try:
            job.stdin = job.stdin[os.write(pipe.fileno(), job.stdin[:CHUNK]) :]
        except BlockingIOError:
            return
        except OSError:  # the program closed its stdin early: that is its business
            job.stdin = memoryview(b"")
        if not job.stdin:
            self.sel.unregister(pipe)
            pipe.close()

    def drain(self, job: Command, pipe: Any, name: str) -> None:
        try:
            chunk = os.read(pipe.fileno(), CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            self.sel.unregister(pipe)
            pipe.close()
            return
        sink = job.buffers[name]
        room = job.limit - len(sink)
        if len(chunk) > room:
            sink += chunk[: max(room, 0)]
            if not job.truncated:
                job.truncated = True
                kill_identity(job.uid)
                job.next_scan = time.monotonic()
        else:
            sink += chunk

    def reap(self) -> None:
        """Collect every exited child (the commands' processes and orphans reparented to PID 1),
        adding its CPU time to the command of its uid."""
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid == 0:
                return
            _, status, usage = os.wait4(info.si_pid, 0)
            job = self.jobs.get(info.si_uid)
            if job is None:
                continue
            job.cpu_s += usage.ru_utime + usage.ru_stime
            if job.proc is not None and info.si_pid == job.proc.pid:
                job.exit_code = os.waitstatus_to_exitcode(status)
                job.proc.returncode = job.exit_code  # reaped here; Popen must not wait again
                job.main_end = time.monotonic()
                job.next_scan = job.main_end

    def tick(self) -> None:
        """Sample threads, end what is over, kill what is late."""
        now = time.monotonic()
        scan: dict[int, list[tuple[int, int]]] | None = None
        for job in list(self.jobs.values()):
            job.sample()
            if now >= job.deadline and not job.timed_out and job.end is None:
                job.timed_out = True
                kill_identity(job.uid)
                job.next_scan = now
            if now < job.next_scan:
                continue
            if scan is None:
                scan = processes()
            alive = scan.get(job.uid, [])
            job.threads = max(job.threads, sum(t for _, t in alive))
            if alive and (job.timed_out or job.truncated):
                kill_identity(job.uid)  # what a fork bomb started since the last kill
                job.next_scan = now + 0.005
            elif job.exit_code is None:
                job.next_scan = now + SCAN_S
            elif alive:
                # The main process is gone but the tree is not: look again soon.
                waited = now - (job.main_end or now)
                job.next_scan = now + min(0.002 * (1 + waited * 50), 0.02)
            else:
                self.finish(job)

    def finish(self, job: Command) -> None:
        """The tree is gone: drain what the pipes still hold, clean up, answer."""
        self.reap()  # a last zombie's CPU time
        job.end = time.monotonic()
        job.busy_s = host_busy() - job.busy_start
        for key in list(self.sel.get_map().values()):
            if key.data[1] is job:
                if key.data[0] in ("stdout", "stderr"):
                    with suppress(OSError):
                        while chunk := os.read(key.fileobj.fileno(), CHUNK):  # type: ignore[union-attr]
                            room = job.limit - len(job.buffers[key.data[0]])
                            job.buffers[key.data[0]] += chunk[: max(room, 0)]
                self.sel.unregister(key.fileobj)
                key.fileobj.close()  # type: ignore[union-attr]
        del self.jobs[job.uid]
        if job.collect:
            job.files = self.collected(job.collect)
        self.cleanup(job, tree_gone=True)
        self.send(job.result())

    def collected(self, path: str) -> dict[str, str]:
        files: dict[str, str] = {}
        room = COLLECT_LIMIT
        for name in sorted(os.listdir(path)):
            try:
                fd = os.open(os.path.join(path, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            with os.fdopen(fd, "rb") as f:
                if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    data = f.read(max(room, 0))
                    room -= len(data)
                    files[name] = b64(data)
        return files

    def cleanup(self, job: Command, tree_gone: bool = False) -> None:
        """Remove everything the command's identity may have left, and seal what it wrote."""
        if job.proc is not None and not tree_gone:
            kill_identity(job.uid)
        for path in (job.scratch, job.collect):
            if path and os.path.lexists(path):
                shutil.rmtree(path, ignore_errors=True)
        for top in (*SHARED_TMP, MQUEUE):
            with suppress(OSError):
                for entry in os.scandir(top):
                    with suppress(OSError):
                        if entry.stat(follow_symlinks=False).st_uid == job.uid:
                            remove(entry.path)
        try:
            remove_ipc(owner=job.uid)
        except OSError as exc:  # no process to spare for the removal: the wipe does it
            print(
                f"parforge supervisor: IPC of uid {job.uid} left for the wipe: {exc}",
                file=sys.stderr,
            )
        for top in job.writes:
            self.seal(top)

    # ---- between jobs --------------------------------------------------------------------

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
        """Kill every other process in the container, remove its IPC objects and empty the
        writable places."""
        if os.getpid() != 1:
            raise RuntimeError("wipe is only allowed as PID 1 of a sandbox container")
        self.kill_all()
        remove_ipc(owner=None)
        for job in list(self.jobs.values()):
            self.finish(job)  # everything was killed: its answer goes out now
        for top in SCRUBBED:
            if os.path.isdir(top):
                for entry in os.scandir(top):
                    remove(entry.path)
                if os.listdir(top):
                    raise RuntimeError(f"could not empty {top}")
        self.dir_gids.clear()
        self.sealed.clear()
        self.prepare_places()


def substitute(text: str, places: dict[str, str]) -> str:
    for token, path in places.items():
        text = text.replace(token, path)
    return text


def remove(path: str) -> None:
    """Delete a file or a tree (as root: no permission can stop it; symlinks are not followed)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


IPC_TABLES = (
    ("/proc/sysvipc/shm", "shmctl"),
    ("/proc/sysvipc/msg", "msgctl"),
    ("/proc/sysvipc/sem", "semctl"),
)
IPC_RMID = 0


def remove_ipc(owner: int | None) -> None:
    """Remove System V shared memory, message queues and semaphores made by `owner` (None: by
    anyone): no job may leave data or a signalling channel for the next command. Only the owner
    or creator may remove an object (root without CAP_SYS_ADMIN is neither), so a child that
    becomes that uid does it. Not `kernel.shm_rmid_forced` instead: Open MPI's shared-memory
    start-up needs a segment to outlive its creator's detach."""
    found: dict[int, list[tuple[str, int]]] = {}
    for table, call in IPC_TABLES:
        try:
            with open(table) as f:
                header, *rows = f.read().splitlines()
        except OSError:
            continue
        columns = header.split()
        for row in rows:
            values = row.split()
            ipc_id = int(
                values[
                    columns.index(
                        "shmid" if call == "shmctl" else "msqid" if call == "msgctl" else "semid"
                    )
                ]
            )
            uid, cuid = int(values[columns.index("uid")]), int(values[columns.index("cuid")])
            if owner is None or owner in (uid, cuid):
                found.setdefault(cuid, []).append((call, ipc_id))
    for uid, objects in found.items():

        def rmid(objects: list[tuple[str, int]] = objects) -> None:
            for call, ipc_id in objects:
                if call == "semctl":
                    libc.semctl(ipc_id, 0, IPC_RMID)
                else:
                    getattr(libc, call)(ipc_id, IPC_RMID, None)

        if uid == os.getuid():
            rmid()
        else:
            as_identity(uid, rmid)
    if owner is None:
        for table, _ in IPC_TABLES:
            with suppress(OSError), open(table) as f:
                if f.read().splitlines()[1:]:
                    raise RuntimeError(f"could not remove every object of {table}")


def non_dumpable() -> None:
    """Forbid ptrace and /proc/1/mem access by processes of the same user."""
    pr_set_dumpable = 4
    if libc.prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def no_inheritance() -> None:
    """Make every descriptor past stderr close-on-exec: commands inherit only the three
    standard ones, which Popen replaces with their own pipes."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            with suppress(OSError):
                os.set_inheritable(fd, False)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    no_inheritance()
    if os.getpid() == 1:
        non_dumpable()
    try:
        Agent().serve()
    except Exception as exc:
        print(f"parforge supervisor: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        raise


if __name__ == "__main__":
    main()

"""The contract every backend keeps; each test runs on docker and on local (bubblewrap)."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from sandbox.base import Sandbox, Workspace
from sandbox.errors import WorkspaceError
from sandbox.models import Command
from tests.sandbox.conftest import host_processes_with, wait_until_gone

pytestmark = pytest.mark.docker

OPENMP_SUM = r"""
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double sum = 0;
    int threads = 0;
    #pragma omp parallel for reduction(+:sum)
    for (long i = 1; i <= n; i++) sum += i;
    #pragma omp parallel
    {
        #pragma omp single
        threads = omp_get_num_threads();
    }
    printf("%.0f %d\n", sum, threads);
    return 0;
}
"""


def sh(script: str, **kwargs: object) -> Command:
    return Command(argv=["sh", "-c", script], **kwargs)  # type: ignore[arg-type]


async def test_protocols_are_implemented(sandbox: Sandbox) -> None:
    assert isinstance(sandbox, Sandbox)
    async with sandbox.workspace() as ws:
        assert isinstance(ws, Workspace)
    info = sandbox.info()
    assert info.backend in ("docker", "local") and info.isolation


async def test_write_and_read_files(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"a.txt": "text\n", "deep/er/b.bin": bytes(range(256))})
        await ws.write_files({"a.txt": "over"})
        assert await ws.read_file("a.txt") == b"over"
        assert await ws.read_file("deep/er/b.bin") == bytes(range(256))
        assert await ws.read_file("deep/er/b.bin", limit=10) == bytes(range(10))
        result = await ws.run(sh("cat a.txt deep/er/b.bin | wc -c; echo made > out.txt"))
        assert result.stdout.split() == ["260"]
        assert await ws.read_file("out.txt") == b"made\n"
        with pytest.raises(WorkspaceError):
            await ws.read_file("missing.txt")


@pytest.mark.parametrize("path", ["../x", "/etc/passwd", "a/../../x", "", "a/../.."])
async def test_paths_escaping_the_workspace_are_rejected(sandbox: Sandbox, path: str) -> None:
    async with sandbox.workspace() as ws:
        with pytest.raises(WorkspaceError):
            await ws.write_files({path: "x"})
        with pytest.raises(WorkspaceError):
            await ws.read_file(path)
        if path:  # an empty cwd means the workspace root
            with pytest.raises(WorkspaceError):
                await ws.run(Command(argv=["true"], cwd=path))


async def test_symlinks_planted_by_a_job_do_not_lead_out(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        result = await ws.run(sh("ln -s /etc/passwd leak && ln -s / root && ln -s /etc dir"))
        assert result.ok, result.stderr
        with pytest.raises(WorkspaceError):
            await ws.read_file("leak")
        with pytest.raises(WorkspaceError):
            await ws.write_files({"dir/parforge-planted": "x"})
        with pytest.raises(WorkspaceError):
            await ws.write_files({"root/tmp/parforge-planted": "x"})


async def test_exit_codes_and_signals(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        ok = await ws.run(Command(argv=["true"]))
        assert ok.exit_code == 0 and ok.ok
        three = await ws.run(sh("echo out; echo err >&2; exit 3"))
        assert (three.exit_code, three.stdout, three.stderr, three.ok) == (
            3,
            "out\n",
            "err\n",
            False,
        )
        assert (await ws.run(sh("kill -SEGV $$"))).exit_code == -11
        assert (await ws.run(sh("kill -TERM $$"))).exit_code == -15
        missing = await ws.run(Command(argv=["no-such-program-anywhere"]))
        assert missing.exit_code == 127 and not missing.timed_out


async def test_stdin_env_and_cwd(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        assert (
            await ws.run(Command(argv=["cat"], stdin="line 1\nline 2\n"))
        ).stdout == "line 1\nline 2\n"
        big = "x" * 300_000
        assert (await ws.run(Command(argv=["wc", "-c"], stdin=big))).stdout.strip() == "300000"
        assert (await ws.run(Command(argv=["cat"]))).stdout == ""  # stdin is empty, not inherited
        env = await ws.run(
            sh('echo "$FOO|$OMP_NUM_THREADS"', env={"FOO": "a b", "OMP_NUM_THREADS": "3"})
        )
        assert env.stdout == "a b|3\n"
        await ws.write_files({"sub/dir/f.txt": "here"})
        inside = await ws.run(Command(argv=["cat", "f.txt"], cwd="sub/dir"))
        assert inside.stdout == "here"
        home = await ws.run(sh('cd "$HOME" && cat sub/dir/f.txt'))
        assert home.stdout == "here"


async def test_timeout_kills_the_whole_process_tree(sandbox: Sandbox) -> None:
    marker = f"{uuid.uuid4().int % 10**6 + 10**6}.5"  # a sleep length no one else uses
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        result = await ws.run(
            sh(f"sleep {marker} & (sleep {marker}; true) & sleep {marker}", timeout_s=1.0)
        )
        assert result.timed_out and not result.ok
        assert result.exit_code == -9
        assert 0.9 <= result.duration_s < 5
        assert time.monotonic() - start < 8
        assert await wait_until_gone(marker) == []


async def test_a_background_child_does_not_hold_the_command(sandbox: Sandbox) -> None:
    marker = f"{uuid.uuid4().int % 10**6 + 4 * 10**6}.5"
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        result = await ws.run(sh(f"sleep {marker} & echo done", timeout_s=10))
        assert result.ok and result.stdout == "done\n"
        assert time.monotonic() - start < 3
        assert await wait_until_gone(marker) == []  # the command's group ends with it


async def test_core_dumps_off_and_file_size_limited(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        limits = await ws.run(sh("ulimit -c; ulimit -f"))
        core, file_blocks = limits.stdout.split()
        assert core == "0" and file_blocks != "unlimited"


async def test_output_is_capped(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        result = await ws.run(
            sh("head -c 5000000 /dev/zero; sleep 30", output_limit=65536, timeout_s=20)
        )
        assert result.output_truncated and not result.timed_out and not result.ok
        assert len(result.stdout) == 65536
        assert time.monotonic() - start < 10  # killed at the limit, not at the time-out
        errs = await ws.run(sh("head -c 200000 /dev/zero >&2", output_limit=4096))
        assert errs.output_truncated and errs.stderr.startswith("\0" * 4096)
        fine = await ws.run(sh("head -c 4096 /dev/zero", output_limit=4096))
        assert fine.ok and len(fine.stdout) == 4096


async def test_concurrent_runs_in_one_workspace(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        results = await asyncio.gather(*(ws.run(sh(f"sleep 1; echo {i}")) for i in range(4)))
        assert [r.stdout for r in results] == [f"{i}\n" for i in range(4)]
        assert time.monotonic() - start < 3.5


async def test_durations_are_measured(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        result = await ws.run(Command(argv=["sleep", "0.3"]))
        assert 0.3 <= result.duration_s < 2


async def test_jobs_do_not_see_each_other(sandbox: Sandbox) -> None:
    marker = f"{uuid.uuid4().int % 10**6 + 2 * 10**6}.5"
    async with sandbox.workspace() as first:
        await first.write_files({"left.txt": "from job 1"})
        started = await first.run(
            sh(
                f"echo x > /tmp/left-{marker}; setsid sleep {marker} > /dev/null 2>&1 < /dev/null & echo started"
            )
        )
        assert started.stdout == "started\n"
    async with sandbox.workspace() as second:
        with pytest.raises(WorkspaceError):
            await second.read_file("left.txt")
        listing = await second.run(sh(f"ls -A; ls /tmp/left-{marker}"))
        assert listing.stdout == "" and listing.exit_code != 0
        assert await wait_until_gone(marker) == []


async def test_openmp_program_compiles_and_runs(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"sum.c": OPENMP_SUM})
        build = await ws.run(Command(argv=["gcc", "-O2", "-fopenmp", "sum.c", "-o", "sum"]))
        assert build.ok, build.stderr
        run = await ws.run(Command(argv=["./sum", "1000"], env={"OMP_NUM_THREADS": "2"}))
        assert run.ok and run.stdout == "500500 2\n"
        broken = await ws.run(sh("echo 'int main() { return x; }' > bad.c && gcc bad.c -o bad"))
        assert broken.exit_code == 1 and "error" in broken.stderr


async def test_marker_helper_sees_host_processes() -> None:
    """The process checks above would pass vacuously if the helper saw nothing."""
    marker = f"{uuid.uuid4().int % 10**6 + 3 * 10**6}.5"
    proc = await asyncio.create_subprocess_exec("sleep", marker)
    try:
        assert host_processes_with(marker) == [proc.pid]
    finally:
        proc.kill()
        await proc.wait()
    assert host_processes_with(marker) == []

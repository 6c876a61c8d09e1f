"""The contract every backend keeps; each test runs on docker and on local (bubblewrap).

Every command is a process tree of its own that may read the directories it is given, write
those it names and its own scratch directory, and leaves nothing behind. Where the backends
differ (docker gives each command its own identity and collects a straggler's late output;
bubblewrap ends the whole tree with the main process), the test says which.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from sandbox.base import Sandbox, Workspace
from sandbox.errors import WorkspaceError
from sandbox.models import COLLECT, SCRATCH, Command
from tests.fakes.backends import backend_of, host_processes_with, wait_until_gone

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


def sh(script: str, *args: str, **kwargs: object) -> Command:
    return Command(argv=["sh", "-c", script, *args], **kwargs)  # type: ignore[arg-type]


async def test_protocols_are_implemented(sandbox: Sandbox) -> None:
    assert isinstance(sandbox, Sandbox)
    async with sandbox.workspace() as ws:
        assert isinstance(ws, Workspace)
    info = sandbox.info()
    assert info.backend in ("docker", "local") and info.isolation


async def test_write_and_read_files(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"a/a.txt": "text\n", "deep/er/b.bin": bytes(range(256))})
        await ws.write_files({"a/a.txt": "over"})
        assert await ws.read_file("a/a.txt") == b"over"
        assert await ws.read_file("deep/er/b.bin") == bytes(range(256))
        assert await ws.read_file("deep/er/b.bin", limit=10) == bytes(range(10))
        result = await ws.run(
            sh(
                "cat a/a.txt deep/er/b.bin | wc -c; echo made > out/out.txt",
                reads=["a", "deep"],
                writes=["out"],
            )
        )
        assert result.stdout.split() == ["260"], result.stderr
        assert await ws.read_file("out/out.txt") == b"made\n"
        with pytest.raises(WorkspaceError):
            await ws.read_file("a/missing.txt")
        with pytest.raises(WorkspaceError):  # files go into directories
            await ws.write_files({"top.txt": "x"})


async def test_a_command_reads_and_writes_only_the_directories_it_is_given(
    sandbox: Sandbox,
) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"ref/secret.txt": "42\n", "cand/main.c": "int main() {}\n"})
        build = await ws.run(
            Command(argv=["gcc", "-o", "prog", "main.c"], cwd="cand", writes=["cand"])
        )
        assert build.ok, build.stderr
        probe = await ws.run(
            sh("cat ../ref/secret.txt; echo x > prog; echo y > new; cp /bin/true prog", cwd="cand")
        )
        assert "42" not in probe.stdout
        assert probe.stderr.count("ermission denied") + probe.stderr.count("Read-only") >= 3
        assert (await ws.run(Command(argv=["./prog"], cwd="cand"))).ok  # still the build's
        assert (await ws.run(sh("cat ../ref/secret.txt", cwd="cand", reads=["ref"]))).ok


async def test_each_command_has_a_fresh_scratch_directory_and_leaves_nothing(
    sandbox: Sandbox,
) -> None:
    async with sandbox.workspace() as ws:
        first = await ws.run(
            sh('echo kept > "$HOME/cache"; echo kept > "$TMPDIR/also"; echo $0', SCRATCH)
        )
        again = await ws.run(sh('ls -A "$HOME" "$TMPDIR"; echo $0', SCRATCH))
        assert first.ok and again.ok, (first.stderr, again.stderr)
        assert again.stdout.strip().splitlines()[-1] != first.stdout.strip()
        assert "cache" not in again.stdout and "also" not in again.stdout
        shared = await ws.run(sh("echo kept > /dev/shm/cache && echo written"))
        assert shared.stdout == "written\n", shared.stderr
        assert (await ws.run(sh("cat /dev/shm/cache"))).exit_code != 0


async def test_tool_logs_come_back_with_the_result(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        result = await ws.run(sh(f"echo report > {COLLECT}/log.1; ls {COLLECT}", collect=True))
        assert result.files == {"log.1": "report\n"}
        if backend_of(sandbox) == "docker":
            assert "log.1" not in result.stdout  # the program cannot list them


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
        result = await ws.run(
            sh("ln -s /etc/passwd leak && ln -s / root && ln -s /etc dir", cwd="j", writes=["j"])
        )
        assert result.ok, result.stderr
        with pytest.raises(WorkspaceError):
            await ws.read_file("j/leak")
        with pytest.raises(WorkspaceError):
            await ws.write_files({"j/dir/parforge-planted": "x"})
        with pytest.raises(WorkspaceError):
            await ws.write_files({"j/root/tmp/parforge-planted": "x"})


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
        home = await ws.run(sh('cd "$HOME" && pwd', SCRATCH))
        assert home.ok and home.stdout.strip()


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


async def test_a_process_that_outlives_main_is_part_of_the_command(sandbox: Sandbox) -> None:
    """A `setsid` child that goes on after the main process exits (the fork-and-exit trick):
    on docker the command ends when its last process does, so the child's late output is
    collected and its time counted; bubblewrap ends every process with the main one, so the
    late output is lost. Either way nothing survives the command."""
    async with sandbox.workspace() as ws:
        late = "(setsid sh -c 'sleep 1; echo late') & echo early"
        result = await ws.run(sh(late, timeout_s=10))
        if backend_of(sandbox) == "docker":
            assert result.ok and result.stdout == "early\nlate\n"
            assert result.duration_s >= 1.0
        else:
            assert result.stdout == "early\n" and result.duration_s < 1.0
        marker = f"{uuid.uuid4().int % 10**6 + 4 * 10**6}.5"
        start = time.monotonic()
        stuck = await ws.run(sh(f"setsid sleep {marker} & echo done", timeout_s=2))
        assert stuck.stdout == "done\n"
        if backend_of(sandbox) == "docker":
            assert stuck.timed_out and 2 <= stuck.duration_s < 5  # held to its time-out
        assert time.monotonic() - start < 8
        assert await wait_until_gone(marker) == []


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
        await first.write_files({"j/left.txt": "from job 1"})
        started = await first.run(
            sh(
                f"echo x > /dev/shm/left-{marker}; setsid sleep {marker} > /dev/null 2>&1 "
                "< /dev/null & echo started",
                timeout_s=1,
            )
        )
        assert started.stdout == "started\n"
    async with sandbox.workspace() as second:
        with pytest.raises(WorkspaceError):
            await second.read_file("j/left.txt")
        listing = await second.run(sh(f"ls /dev/shm/left-{marker}"))
        assert listing.exit_code != 0
        assert await wait_until_gone(marker) == []


async def test_openmp_program_compiles_and_runs(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"p/sum.c": OPENMP_SUM})
        build = await ws.run(
            Command(argv=["clang", "-O2", "-fopenmp", "sum.c", "-o", "sum"], cwd="p", writes=["p"])
        )
        assert build.ok, build.stderr
        run = await ws.run(Command(argv=["./sum", "1000"], cwd="p", env={"OMP_NUM_THREADS": "2"}))
        assert run.ok and run.stdout == "500500 2\n"
        broken = await ws.run(
            sh("echo 'int main() { return x; }' > bad.c && gcc bad.c -o bad", cwd="p", writes=["p"])
        )
        assert broken.exit_code == 1 and "error" in broken.stderr


async def test_pinned_commands_run_on_that_many_cpus(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        one = await ws.run(Command(argv=["nproc"], cpus=1))
        assert one.stdout.strip() == "1"
        many = await ws.run(Command(argv=["nproc"], cpus=64))
        assert int(many.stdout) >= 1


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

"""The docker backend's own promises: hardening, PID 1, the pool, the watchdog, GPU/CUDA, prune."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from pathlib import Path

import docker
import pytest

from sandbox.backends import container
from sandbox.backends.container import Setup, container_spec
from sandbox.backends.docker import DockerSandbox
from sandbox.base import Sandbox
from sandbox.config import DockerConfig
from sandbox.errors import SandboxUnavailable, WorkspaceError
from sandbox.models import Command
from tests.fakes.backends import DOCKER_TEST_CONFIG

RACE = r"""
#include <stdio.h>
int main(void) {
    int sum = 0;
    #pragma omp parallel for
    for (int i = 0; i < 1000; i++) sum += i;
    printf("%d\n", sum);
    return 0;
}
"""
KERNEL = r"""
__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
int main() { return 0; }
"""
HOST_CUDA = Path("/usr/local/cuda").resolve()


def sh(script: str, **kwargs: object) -> Command:
    return Command(argv=["bash", "-c", script], **kwargs)  # type: ignore[arg-type]


def docker_box(**overrides: object) -> DockerSandbox:
    return DockerSandbox(DOCKER_TEST_CONFIG.model_copy(update=overrides))


def our_containers() -> list[str]:
    client = docker.from_env()
    try:
        found = client.containers.list(
            all=True, filters={"label": f"parforge.owner={container.OWNER}"}
        )
        return [str(c.id) for c in found]
    finally:
        client.close()


# Unit tests: no engine needed.


def test_container_spec_is_hardened() -> None:
    config = DockerConfig(cpus=1.5, memory_mb=1024, pids_limit=100, workdir_mb=128, tmp_mb=32)
    spec = container_spec(config, Setup(image="img", gpu=False, cuda_root=None))
    assert spec["network_mode"] == "none" and spec["read_only"] is True
    assert spec["cap_drop"] == ["ALL"] and spec["security_opt"] == ["no-new-privileges"]
    # The agent is root with what it needs to give each command its own identity, no more.
    assert spec["user"] == "0:0" and spec["pids_limit"] == 100
    assert sorted(spec["cap_add"]) == [
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "KILL",
        "SETGID",
        "SETUID",
    ]
    assert spec["sysctls"] == {"fs.mqueue.queues_max": "0", "kernel.msgmni": "0"}
    assert spec["mem_limit"] == spec["memswap_limit"] == "1024m"
    assert spec["nano_cpus"] == 1_500_000_000
    assert "size=128m" in spec["tmpfs"]["/work"] and "size=32m" in spec["tmpfs"]["/tmp"]
    limits = {u["Name"]: (u["Soft"], u["Hard"]) for u in spec["ulimits"]}
    assert limits == {"core": (0, 0), "fsize": (128 << 20, 128 << 20)}
    assert spec["labels"]["parforge.sandbox"] == "1" and "device_requests" not in spec
    assert spec["mounts"] == []
    # The engine refuses a CPU limit above its host's CPUs; at or above them nothing is limited.
    whole = container_spec(
        DockerConfig(cpus=2), Setup(image="img", gpu=False, cuda_root=None, engine_cpus=2)
    )
    assert "nano_cpus" not in whole


def test_container_spec_gpu_and_cuda() -> None:
    spec = container_spec(
        DockerConfig(), Setup(image="img", gpu=True, cuda_root=Path("/opt/cuda-13.0"))
    )
    [request] = spec["device_requests"]
    assert request["Count"] == -1 and request["Capabilities"] == [["gpu"]]
    targets = {(m["Target"], m["Source"], m["ReadOnly"]) for m in spec["mounts"]}
    assert targets == {
        ("/opt/cuda-13.0", "/opt/cuda-13.0", True),
        ("/usr/local/cuda", "/opt/cuda-13.0", True),
    }
    assert spec["environment"]["PATH"].startswith("/usr/local/cuda/bin:/usr/local/sbin:")
    assert spec["environment"]["NVIDIA_DRIVER_CAPABILITIES"] == "compute,utility"


def test_tmpfs_must_fit_in_memory() -> None:
    with pytest.raises(ValueError, match="memory_mb"):
        DockerConfig(memory_mb=512, workdir_mb=512)


# Against the real engine.


def test_agent_refuses_to_wipe_unless_it_is_pid_1(sandbox_image: str) -> None:
    """Anywhere but PID 1 of a container, `kill(-1)` would reach every process of the user: the
    agent must refuse. Checked in a container under docker-init, so a regression hurts nothing."""
    argv = ["docker", "run", "--rm", "-i", "--init", "--network", "none"]
    argv += ["--tmpfs", "/work", "--user", "0:0", sandbox_image]
    done = subprocess.run(argv, input=b'{"id": 1, "op": "wipe"}\n', capture_output=True, timeout=60)
    replies = done.stdout.decode().splitlines()
    assert '"ready":true' in replies[0] and '"ok":false' in replies[1] and "PID 1" in replies[1]


async def test_inside_the_container(docker_sandbox: Sandbox) -> None:
    async with docker_sandbox.workspace() as ws:
        status = await ws.run(
            sh("grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; ulimit -c; pwd; id -u")
        )
        caps, zero, privs, one, core, cwd, uid = status.stdout.split()
        assert (caps, zero, privs, one, core, cwd) == (
            "CapEff:",
            "0000000000000000",
            "NoNewPrivs:",
            "1",
            "0",
            "/work",
        )
        # Every command is an identity of its own, never root and never the same twice.
        again = await ws.run(Command(argv=["id", "-u"]))
        assert 20000 <= int(uid) < 40000 and int(again.stdout) not in (0, int(uid))
        readonly = await ws.run(sh("touch /etc/x /usr/x /x 2>&1; true"))
        assert readonly.stdout.count("Read-only file system") == 3
        assert (await ws.run(sh("ip link 2>/dev/null || ls /sys/class/net"))).stdout.split() == [
            "lo"
        ]


async def test_pid_1_survives_jobs_and_reaps_orphans(docker_sandbox: Sandbox) -> None:
    async with docker_sandbox.workspace() as ws:
        killer = await ws.run(sh("kill -9 1; kill -9 -1; echo after"))
        assert killer.stdout == "after\n"
        orphans = await ws.run(sh("for i in 1 2 3 4 5; do (sleep 0.1 &) ; done; echo spawned"))
        assert orphans.ok
        await asyncio.sleep(0.5)
        states = await ws.run(sh("cat /proc/[0-9]*/stat | awk '{ print $3 }' | sort | uniq -c"))
        assert " Z" not in states.stdout, states.stdout  # no zombie left unreaped
        private = await ws.run(sh("cat /proc/1/environ || head -c 1 /proc/1/mem"))
        assert private.exit_code != 0 and "Permission denied" in private.stderr
    async with docker_sandbox.workspace() as ws:
        assert (await ws.run(Command(argv=["true"]))).ok


async def test_pool_reuses_containers_and_cold_mode_does_not(sandbox_image: str) -> None:
    first_pid_start = "awk '{ print $22 }' /proc/1/stat"
    for reuse, expect_same in ((True, True), (False, False)):
        box = docker_box(reuse=reuse)
        try:
            seen = []
            for _ in range(2):
                async with box.workspace() as ws:
                    seen.append((await ws.run(sh(first_pid_start))).stdout)
            assert (seen[0] == seen[1]) is expect_same
        finally:
            await box.aclose()
    assert our_containers() == []


async def test_pool_size_bounds_concurrent_jobs(sandbox_image: str) -> None:
    box = docker_box(pool_size=2)
    running, peak = 0, 0

    async def job() -> None:
        nonlocal running, peak
        async with box.workspace() as ws:
            running += 1
            peak = max(peak, running)
            await ws.run(Command(argv=["sleep", "0.5"]))
            running -= 1

    try:
        await box.start()
        assert len(our_containers()) == 2  # pre-warmed
        await asyncio.gather(*(job() for _ in range(5)))
        assert peak == 2
    finally:
        await box.aclose()
    assert our_containers() == []


async def test_watchdog_kills_a_stuck_container_and_the_pool_replaces_it(
    sandbox_image: str,
) -> None:
    box = docker_box(watchdog_grace_s=1.0)
    client = docker.from_env()
    try:
        async with box.workspace() as ws:
            [stuck] = our_containers()
            run = asyncio.create_task(ws.run(Command(argv=["sleep", "30"], timeout_s=1.0)))
            # a second command under way in the same workspace, with time to spare
            beside = asyncio.create_task(ws.run(Command(argv=["sleep", "30"], timeout_s=25.0)))
            await asyncio.sleep(0.3)
            await asyncio.to_thread(client.api.pause, stuck)  # the agent can no longer answer
            result = await run
            assert (
                result.timed_out and result.exit_code == -9 and "container killed" in result.stderr
            )
            # it ends with the container, as a time-out (the candidate's), never as a failure
            # of the sandbox that would stop a whole evaluation
            ended = await beside
            assert ended.timed_out and "another command's time-out" in ended.stderr
            assert stuck not in our_containers()
            # so does any later command there (a later stage's): nothing can run any more
            later = await ws.run(Command(argv=["true"]))
            assert later.timed_out and "an earlier command's time-out" in later.stderr
            with pytest.raises(WorkspaceError):
                await ws.read_file("anything")
        async with box.workspace() as ws:
            assert (await ws.run(Command(argv=["true"]))).ok
    finally:
        client.close()
        await box.aclose()


async def test_gpu_follows_the_engine(docker_sandbox: DockerSandbox) -> None:
    await docker_sandbox.start()
    client = docker.from_env()
    try:
        runtimes = client.info().get("Runtimes") or {}
    finally:
        client.close()
    assert docker_sandbox.info().gpu is ("nvidia" in runtimes)
    assert docker_sandbox.info().image == (await docker_sandbox.build_image())


@pytest.mark.skipif(
    not (HOST_CUDA / "bin" / "nvcc").is_file(), reason="no CUDA toolkit on this host"
)
async def test_host_cuda_toolkit_builds_inside(docker_sandbox: Sandbox) -> None:
    async with docker_sandbox.workspace() as ws:
        await ws.write_files({"k/k.cu": KERNEL})
        build = await ws.run(
            Command(
                argv=["nvcc", "-O2", "-Xptxas", "-v", "k.cu", "-o", "k"],
                cwd="k",
                writes=["k"],
                timeout_s=120,
            )
        )
        assert build.ok, build.stderr
        assert "registers" in build.stderr


async def test_race_checker_and_mpi_in_the_image(docker_sandbox: Sandbox) -> None:
    async with docker_sandbox.workspace() as ws:
        await ws.write_files({"r/race.c": RACE})
        build = await ws.run(
            Command(
                argv=["clang", "-fopenmp", "-fsanitize=thread", "-g", "race.c", "-o", "race"],
                cwd="r",
                writes=["r"],
            )
        )
        assert build.ok, build.stderr
        env = {"OMP_NUM_THREADS": "4", "TSAN_OPTIONS": "ignore_noninstrumented_modules=1"}
        raced = await ws.run(Command(argv=["./race"], cwd="r", env=env))
        assert raced.exit_code == 66 and "data race" in raced.stderr and "race.c:" in raced.stderr
        mpi = "printf '#include <mpi.h>\\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }' > m.c"
        ran = await ws.run(
            sh(
                f"{mpi} && mpicc m.c -o m && mpirun -np 2 --oversubscribe ./m && echo ran",
                cwd="m",
                writes=["m"],
            )
        )
        assert ran.stdout.endswith("ran\n"), ran.stderr


async def _dead_owners_labels() -> dict[str, str]:
    """Sandbox labels naming a process of this host that has exited: a stale container's."""
    dead = await asyncio.create_subprocess_exec("true")
    await dead.wait()
    return {**container.owner_labels(), "parforge.owner": "gone", "parforge.pid": str(dead.pid)}


async def test_prune_removes_containers_of_dead_processes(docker_sandbox: DockerSandbox) -> None:
    labels = await _dead_owners_labels()
    client = docker.from_env()
    try:
        image = docker_sandbox.info().image
        stale = client.containers.create(image, labels=labels, network_mode="none")
        assert await docker_sandbox.prune() == [stale.id]
        again = client.containers.create(image, labels=labels, network_mode="none")
        async with docker_sandbox.workspace():
            # The sandbox pruned at start, before its first container.
            with pytest.raises(docker.errors.NotFound):
                client.containers.get(again.id)
            assert await docker_sandbox.prune() == []
            assert len(our_containers()) == 1  # our own live container stays
    finally:
        client.close()


async def test_two_processes_pruning_at_once_both_succeed(docker_sandbox: DockerSandbox) -> None:
    """Two ParForge processes on one host prune together: neither fails (a listing that
    inspected each container failed on one the other removed meanwhile), and each stale
    container is reported by exactly one of them (both had reported one: the host's pruning
    lock now keeps their listings and removals apart)."""
    labels = await _dead_owners_labels()
    client = docker.from_env()
    other = DockerSandbox(DockerConfig(pool_size=1))
    stale: set[str] = set()
    try:
        image = docker_sandbox.info().image
        for _ in range(3):
            stale = {
                client.containers.create(image, labels=labels, network_mode="none").id
                for _ in range(12)
            }
            ours, theirs = await asyncio.gather(docker_sandbox.prune(), other.prune())
            assert not set(ours) & set(theirs)
            assert set(ours) | set(theirs) == stale
    finally:
        for left in stale:
            with contextlib.suppress(docker.errors.NotFound):
                client.containers.get(left).remove(force=True)
        await other.aclose()
        client.close()


async def test_missing_image_and_engine_are_infrastructure_errors(sandbox_image: str) -> None:
    box = docker_box(image="parforge-sandbox:does-not-exist")
    with pytest.raises(SandboxUnavailable, match="parforge sandbox build"):
        async with box.workspace():
            pass
    await box.aclose()
    nowhere = docker_box(docker_host=f"unix://{os.getcwd()}/no-engine.sock")
    with pytest.raises(SandboxUnavailable):
        async with nowhere.workspace():
            pass
    await nowhere.aclose()


class _Client:
    """A Docker client whose engine fails to kill a container `failures` times (answer 500)."""

    def __init__(self, failures: int) -> None:
        self.failures, self.calls = failures, 0
        self.api = self

    def remove_container(self, container_id: str, force: bool) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            response = type(
                "Response", (), {"status_code": 500, "reason": "Server Error", "url": "/containers"}
            )()
            raise docker.errors.APIError(
                "500", response=response, explanation="did not receive an exit event"
            )


class _Engine:
    def __init__(self, client: _Client) -> None:
        self.client = client

    async def call(self, fn: object, what: str) -> object:
        try:
            return fn(self.client)  # type: ignore[operator]
        except docker.errors.APIError as exc:  # as the real engine wraps what the SDK raises
            raise SandboxUnavailable(f"{what}: {exc.explanation}") from exc


class _Channel:
    def close(self) -> None:
        pass


@pytest.mark.parametrize(("failures", "removed"), [(0, True), (2, True), (3, False)])
async def test_removal_is_retried_when_a_loaded_engine_misses_the_exit_event(
    monkeypatch: pytest.MonkeyPatch, failures: int, removed: bool
) -> None:
    monkeypatch.setattr(container.time, "sleep", lambda s: None)
    client = _Client(failures)
    box = container.Box(_Engine(client), "c0ffee", _Channel())  # type: ignore[arg-type]
    if removed:
        await box.remove()
    else:
        with pytest.raises(SandboxUnavailable, match="exit event"):
            await box.remove()
    assert client.calls == min(failures + 1, 3)


async def test_a_failed_background_chore_is_logged_not_lost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from sandbox.backends.docker import _log_failed_chore

    async def fails() -> None:
        raise SandboxUnavailable("removing container c0ffee: did not receive an exit event")

    task = asyncio.ensure_future(fails())
    task.add_done_callback(_log_failed_chore)
    await asyncio.wait([task])
    await asyncio.sleep(0)
    assert "did not receive an exit event" in caplog.text


async def test_a_watchdog_kill_the_engine_fumbles_is_still_a_time_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under load the agent may miss a command's time-out and the engine may then fail to kill
    # the container: the command is a time-out (a verdict), not a sandbox error that fails the task.
    from sandbox.backends.docker import DockerWorkspace

    monkeypatch.setattr(container.time, "sleep", lambda s: None)
    box = container.Box(_Engine(_Client(failures=9)), "c0ffee", _Channel())  # type: ignore[arg-type]
    result = await DockerWorkspace(box, DOCKER_TEST_CONFIG)._kill_container(12.0)
    assert result.timed_out and result.exit_code == -9
    assert box.broken is not None  # the pool will not reuse it, and removes it again on release


async def test_a_wipe_while_a_command_streams_leaves_the_agent_serving(sandbox_image: str) -> None:
    # A caller that gives up on a command (a parallel stage cancelled) releases its workspace
    # while the command still writes: the wipe and the command's output can arrive in one
    # wake-up of the agent, and the wipe closes the pipe the next event is about. The agent must
    # stay up: the container goes back to the pool and serves the next lease.
    box = docker_box(pool_size=1)
    try:
        seen = set()
        for _ in range(12):
            async with box.workspace() as ws:
                # about 1 MB/s each of short writes: the pipes are never empty for long, their
                # output limits a second away
                spew = [
                    asyncio.create_task(
                        ws.run(sh("while :; do echo parforge; done", timeout_s=20.0))
                    )
                    for _ in range(4)
                ]
                await asyncio.sleep(0.2)
                for task in spew:
                    task.cancel()
                await asyncio.gather(*spew, return_exceptions=True)
            async with box.workspace() as ws:
                assert (await ws.run(Command(argv=["true"]))).ok
            seen.update(our_containers())
        assert len(seen) == 1  # never replaced: the agent never died
    finally:
        await box.aclose()
    assert our_containers() == []

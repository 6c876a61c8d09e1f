"""Hostile programs: each one is contained, comes back as a result, leaves the host untouched,
and the sandbox serves the next job.

The local backend (with bubblewrap) runs the ones its isolation can contain; the others skip
with the reason, which is also what its docs say about it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import shutil
import socket
import time
import uuid
from pathlib import Path

import docker
import pytest

from sandbox.base import Sandbox
from sandbox.models import Command
from tests.fakes.backends import backend_of

pytestmark = [pytest.mark.docker, pytest.mark.slow]

MEMORY_BOMB = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    size_t chunk = 64u << 20, total = 0;
    for (;;) {
        char *p = malloc(chunk);
        if (!p) { printf("malloc refused after %zu MiB\n", total >> 20); return 3; }
        memset(p, 1, chunk);
        total += chunk;
    }
}
"""


def sh(script: str, timeout_s: float = 30.0) -> Command:
    return Command(argv=["bash", "-c", script], timeout_s=timeout_s)


def local_cannot(sandbox: Sandbox, why: str) -> None:
    if backend_of(sandbox) == "local":
        pytest.skip(f"the local backend cannot contain this: {why}")


async def still_serves(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        result = await ws.run(sh("echo ok"))
        assert result.ok and result.stdout == "ok\n", result


async def test_fork_bomb(sandbox: Sandbox) -> None:
    local_cannot(
        sandbox, "no process-count limit (RLIMIT_NPROC does not bind root; no pids cgroup)"
    )
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        result = await ws.run(sh(":(){ :|:& };:; sleep 30", timeout_s=5))
        assert not result.ok and time.monotonic() - start < 20
    await still_serves(sandbox)


async def test_memory_bomb(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        await ws.write_files({"b/bomb.c": MEMORY_BOMB})
        built = await ws.run(
            Command(argv=["gcc", "-O1", "bomb.c", "-o", "bomb"], cwd="b", writes=["b"])
        )
        assert built.ok, built.stderr
        result = await ws.run(Command(argv=["./bomb"], cwd="b", timeout_s=60))
        assert not result.ok and not result.timed_out
        assert result.exit_code == -9 and "memory" in result.stderr, result
        assert result.out_of_memory, result
    await still_serves(sandbox)


async def test_a_memory_bomb_under_a_launcher_is_reported_as_out_of_memory(
    sandbox: Sandbox,
) -> None:
    # What mpirun does when the kernel kills a rank: the launcher itself exits 137, so the
    # command's status alone cannot tell a memory kill from a program's own `exit(137)`.
    async with sandbox.workspace() as ws:
        await ws.write_files({"b/bomb.c": MEMORY_BOMB})
        built = await ws.run(
            Command(argv=["gcc", "-O1", "bomb.c", "-o", "bomb"], cwd="b", writes=["b"])
        )
        assert built.ok, built.stderr
        result = await ws.run(
            Command(argv=["bash", "-c", "./bomb; exit $?"], cwd="b", timeout_s=60)
        )
        # Docker: the kernel kills the bomb and bash exits 137; local: its watch kills the tree.
        assert not result.ok and result.out_of_memory, result
        pretend = await ws.run(sh("exit 137"))
        assert not pretend.ok and not pretend.out_of_memory, pretend
    await still_serves(sandbox)


async def test_infinite_loop(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        result = await ws.run(sh("while :; do :; done", timeout_s=2))
        assert result.timed_out and result.exit_code == -9
        assert 2 <= result.duration_s < 6
    await still_serves(sandbox)


async def test_network_connection_attempt(sandbox: Sandbox) -> None:
    accepted: list[object] = []
    server = await asyncio.start_server(lambda r, w: accepted.append(w), "0.0.0.0", 0)
    port = server.sockets[0].getsockname()[1]
    targets = ["127.0.0.1", _outgoing_address(), _docker_gateway(), "1.1.1.1"]
    try:
        async with sandbox.workspace() as ws:
            for address in targets:
                script = f"exec 3<>/dev/tcp/{address}/{port} && echo connected"
                result = await ws.run(sh(script, timeout_s=10))
                assert "connected" not in result.stdout and result.exit_code != 0, (address, result)
            # The sandbox's own loopback may work; nothing beyond it does.
            dns = await ws.run(sh("getent hosts example.com || echo unresolved", timeout_s=10))
            assert "unresolved" in dns.stdout
    finally:
        server.close()
        await server.wait_closed()
    assert accepted == []
    await still_serves(sandbox)


async def test_reading_host_files(sandbox: Sandbox, tmp_path: Path) -> None:
    local_cannot(sandbox, "bubblewrap binds the host's root read-only, so host files stay readable")
    secret = uuid.uuid4().hex
    marker = tmp_path / "host-secret.txt"
    marker.write_text(secret)
    async with sandbox.workspace() as ws:
        result = await ws.run(sh(f"cat {marker}; cat /etc/hostname; ls {tmp_path}", timeout_s=10))
        assert secret not in result.stdout + result.stderr
        assert "No such file" in result.stderr
    await still_serves(sandbox)


async def test_writing_outside_the_work_dir(sandbox: Sandbox, tmp_path: Path) -> None:
    name = f"parforge-escape-{uuid.uuid4().hex[:8]}"
    targets = [f"/etc/{name}", f"/usr/{name}", f"/{name}", f"/var/tmp/{name}", str(tmp_path / name)]
    script = "; ".join(f"echo x > {t} && echo WROTE {t}" for t in targets) + "; true"
    async with sandbox.workspace() as ws:
        result = await ws.run(sh(script, timeout_s=10))
        assert "WROTE" not in result.stdout, result
    assert [t for t in targets if _exists(t)] == []
    await still_serves(sandbox)


async def test_filling_the_disk(sandbox: Sandbox) -> None:
    local_cannot(
        sandbox, "its workspace is a host directory with a per-file size limit but no quota"
    )
    free_before = shutil.disk_usage("/").free
    fill = "i=0; while head -c 8388608 /dev/zero > {dir}/f$i; do i=$((i+1)); done; echo $i"
    async with sandbox.workspace() as ws:
        # Every place a command may write: a directory it was given, its scratch, /dev/shm.
        for place, where in ((".", "w"), ('"$HOME"', "."), ("/dev/shm", ".")):
            command = sh(fill.format(dir=place), timeout_s=60)
            if where != ".":
                command = command.model_copy(update={"cwd": where, "writes": [where]})
            result = await ws.run(command)
            assert not result.timed_out and "No space left" in result.stderr, result
            assert (
                int(result.stdout) * 8 <= 256 + 8
            )  # at most the tmpfs size (test config: 256 MiB)
        shared = await ws.run(sh("echo x > /tmp/x"))
        assert shared.exit_code != 0 and "Permission denied" in shared.stderr  # /tmp: nobody's
    assert free_before - shutil.disk_usage("/").free < 200 << 20  # tmpfs: memory, not host disk
    async with sandbox.workspace() as ws:
        usage = await ws.run(
            sh("df -k /work /tmp /dev/shm | awk 'NR > 1 { s += $3 } END { print s }'")
        )
        assert int(usage.stdout) < 1024, usage  # wiped: the next job gets the space back
    await still_serves(sandbox)


async def test_a_hundred_megabytes_of_output(sandbox: Sandbox) -> None:
    async with sandbox.workspace() as ws:
        start = time.monotonic()
        result = await ws.run(sh("head -c 100000000 /dev/zero; head -c 100000000 /dev/zero >&2"))
        assert result.output_truncated and not result.timed_out and not result.ok
        assert len(result.stdout) == 1 << 20
        assert time.monotonic() - start < 10
    await still_serves(sandbox)


def _exists(path: str) -> bool:
    return Path(path).exists()


def _outgoing_address() -> str:
    """This host's address on its default route (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 9))
        return str(probe.getsockname()[0])


def _docker_gateway() -> str:
    """The host's address on Docker's default bridge, where containers with a network reach it."""
    client = docker.from_env()
    try:
        config = client.networks.get("bridge").attrs["IPAM"]["Config"][0]
    finally:
        client.close()
    # Engines leave Gateway out when it is the default: the subnet's first address.
    return str(config.get("Gateway") or ipaddress.ip_network(config["Subnet"])[1])

"""KERNEL_SHARD_HOME: what the server sends a remote kernel, and how the kernel adopts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from shard_kernel.state_home import adopt_kernel_home, kernel_home_env


def test_the_server_sends_its_own_home_unless_the_kernels_see_it_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SHARD_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("SHARD_KERNEL_HOME", raising=False)
    assert kernel_home_env() == {"KERNEL_SHARD_HOME": str(tmp_path / "state")}
    assert kernel_home_env({"SHARD_KERNEL_HOME": "/mnt/shard"}) == {
        "KERNEL_SHARD_HOME": "/mnt/shard"
    }
    assert kernel_home_env({"SHARD_KERNEL_HOME": "  "}) == {
        "KERNEL_SHARD_HOME": str(tmp_path / "state")
    }


def test_the_kernel_adopts_it_as_its_shard_home() -> None:
    env = {"SHARD_HOME": "/home/u/.shard", "KERNEL_SHARD_HOME": "/mnt/shard"}
    adopt_kernel_home(env)
    assert env["SHARD_HOME"] == "/mnt/shard"
    untouched = {"SHARD_HOME": "/home/u/.shard", "KERNEL_SHARD_HOME": ""}
    adopt_kernel_home(untouched)
    assert untouched["SHARD_HOME"] == "/home/u/.shard"

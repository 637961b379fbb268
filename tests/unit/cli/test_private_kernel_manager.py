"""Where `private_kernel_manager` puts a kernel's sockets, and when it falls back to TCP."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from shard_kernel import local_kernels
from shard_kernel.local_kernels import SOCKET_PATH_MAX, private_kernel_manager


def test_sockets_go_in_a_private_folder_removed_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with private_kernel_manager() as km:
        assert (km.transport, km.kernel_name) == ("ipc", "shard")
        folder = Path(km.ip).parent
        assert folder.parent == tmp_path
        assert folder.name.startswith("shard-k-")
        assert km.connection_file == str(folder / "kernel.json")
        assert len(f"{km.ip}-65535") <= SOCKET_PATH_MAX
        (folder / "k-1").write_text("a socket a crashed kernel left")
    assert list(tmp_path.iterdir()) == []


def test_a_temp_dir_too_long_for_a_socket_path_falls_back_to_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / ("x" * 90)))
    with private_kernel_manager() as km:
        assert km.transport == "ipc"
        assert Path(km.ip).parent.parent == Path("/tmp")
    assert not Path(km.ip).parent.exists()


def test_without_ipc_the_kernel_stays_on_loopback_tcp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_kernels.zmq, "has", lambda capability: capability != "ipc")  # Windows
    with private_kernel_manager() as km:
        assert (km.transport, km.ip) == ("tcp", "127.0.0.1")

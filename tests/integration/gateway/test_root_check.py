"""`shard gateway` as root without --allow-root says why it stops before loading anything:
jupyter_server's own check comes only after every extension has loaded and logged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shard_core.types.errors import ConfigError
from shard_kernel.gateway.app import refuse_root
from tests.integration.gateway.conftest import free_port, isolated_env

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs to run as root"
)


def test_root_without_allow_root_is_refused_before_any_extension_loads(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "shard_kernel.gateway", "--port", str(free_port())]
    done = subprocess.run(
        [*argv, "--token", "t0ken-long-enough-for-a-test"],
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "shard: error: running as root is refused (a kernel's tools would run as root too); "
        "pass --allow-root to run anyway, e.g. in a container"
    ]


def test_allow_root_lets_root_through() -> None:
    refuse_root(True)
    with pytest.raises(ConfigError, match="--allow-root"):
        refuse_root(False)

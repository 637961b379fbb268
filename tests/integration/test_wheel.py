"""The wheel carries the prebuilt JupyterLab extension: `pip install` alone makes Lab load it.

Builds the wheel from this checkout (the build hook ships the committed front end when it is
fresh: no node involved), lays its data files out as an install would, and asks
`jupyter labextension list` about them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# one worker runs this module: its module-scoped fixture is built once (pytest-xdist)
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("wheel")]

ROOT = Path(__file__).resolve().parents[2]
LAB = "share/jupyter/labextensions/shard-jupyterlab"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    env = {**os.environ, "SHARD_SKIP_JS_BUILD": "1"}  # the committed build must be enough
    done = subprocess.run(
        [*argv, "-w", str(out), str(ROOT)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = out.glob("shard-*.whl")
    return built


def test_the_wheel_ships_the_lab_extension_kernelspec_and_server_config(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    data = next(n.split("/")[0] for n in names if ".data/" in n)
    shipped = {n.removeprefix(f"{data}/data/") for n in names if n.startswith(f"{data}/data/")}
    assert f"{LAB}/package.json" in shipped
    assert f"{LAB}/install.json" in shipped
    assert any(re.fullmatch(rf"{LAB}/static/remoteEntry\.[0-9a-f]+\.js", n) for n in shipped)
    assert "share/jupyter/kernels/shard/kernel.json" in shipped
    assert "etc/jupyter/jupyter_server_config.d/shard_kernel.gateway.json" in shipped
    assert not any("node_modules" in n for n in names)


def test_jupyter_lists_the_installed_extension_enabled_and_ok(wheel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if ".data/data/" in name:
                target = prefix / name.split(".data/data/", 1)[1]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    env = {
        **os.environ,
        "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "NO_COLOR": "1",
    }
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)
    assert str(prefix / "share" / "jupyter" / "labextensions") in text, text
    assert re.search(r"shard-jupyterlab v\S+ enabled OK \(python, shard\)", text), text

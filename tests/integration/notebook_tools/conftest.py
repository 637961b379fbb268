"""An isolated Jupyter/Shard home, and an agent with the notebook tools and a scripted provider."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shard_core.contracts import ExtensionApi
from shard_core.engine.config import ShardConfig
from shard_core.sdk import Agent, create_agent
from shard_kernel.notebook_tools import NotebookSetup, notebook_extension
from tests.fixtures.function_provider import FunctionProvider

RUN_RULES = ["PythonExec", "NotebookRun", "Edit(**/*.ipynb)"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, sub in [
        ("JUPYTER_DATA_DIR", "jdata"),
        ("JUPYTER_RUNTIME_DIR", "jruntime"),
        ("JUPYTER_CONFIG_DIR", "jconfig"),
        ("IPYTHONDIR", "ipython"),
        ("SHARD_HOME", "shard-home"),
        ("XDG_CONFIG_HOME", "xdg"),
        ("MPLCONFIGDIR", "mpl"),
    ]:
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(name, str(tmp_path / sub))
    return tmp_path


@pytest.fixture
def work(home: Path) -> Path:
    folder = home / "work"
    folder.mkdir()
    return Path(os.path.realpath(folder))


AgentFactory = Callable[..., Any]


@pytest.fixture
def make_agent(work: Path) -> AgentFactory:
    async def make(
        provider: FunctionProvider, setup: NotebookSetup | None = None, **kw: Any
    ) -> Agent:
        def install(api: ExtensionApi) -> None:
            api.register_provider("fn", lambda _model: provider)

        extensions = [("test.provider", install), notebook_extension(setup)]
        return await create_agent(
            cwd=work,
            model="fn/test",
            config=ShardConfig(),
            env={},
            extensions=extensions,
            allow=kw.pop("allow", RUN_RULES),
            **kw,
        )

    return make

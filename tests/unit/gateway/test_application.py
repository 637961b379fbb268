"""ShardGateway, the gateway as an ExtensionApp: found through the module the config file
enables, its setting read from config (the kernels' variable as its default), every route in one
table, and the coordinator closed by `stop_extension` when the server stops."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_server.serverapp import ServerApp
from traitlets.config import Config

from shard_kernel.gateway import EXTENSION, _jupyter_server_extension_points
from shard_kernel.gateway.application import ALL_ROUTES, ShardGateway
from shard_kernel.gateway.completion import COMPLETION_ROUTES
from shard_kernel.gateway.events_socket import SOCKET_ROUTES
from shard_kernel.gateway.grants import GRANT_ROUTES
from shard_kernel.gateway.handlers import ROUTES, TRUST_KEY
from shard_kernel.gateway.jobs import COORDINATOR_KEY, JOB_ROUTES, WORKFLOW_ROUTES
from shard_kernel.gateway.mention_files import MENTION_ROUTES
from shard_kernel.gateway.pool import POOL_ROUTES, PooledKernelManager
from shard_kernel.gateway.terminals import TERMINAL_ROUTES
from shard_kernel.gateway_reach import kernel_gateway_env


def test_the_enabled_module_names_the_extension_app() -> None:
    assert _jupyter_server_extension_points() == [{"module": EXTENSION, "app": ShardGateway}]


def test_trust_defaults_to_the_kernels_variable_and_config_overrides_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("KERNEL_SHARD_TRUST_PROJECT", raising=False)
    assert ShardGateway().trust_project is False
    monkeypatch.setenv("KERNEL_SHARD_TRUST_PROJECT", "yes")
    assert ShardGateway().trust_project is True
    config = Config({"ShardGateway": {"trust_project": False}})
    assert ShardGateway(config=config).trust_project is False


def test_the_kernels_reach_url_defaults_to_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_KERNEL_GATEWAY_URL", "http://server.internal:8888/")
    assert ShardGateway().kernel_reach_url == "http://server.internal:8888/"
    config = Config({"ShardGateway": {"kernel_reach_url": "http://other:1/"}})
    assert ShardGateway(config=config).kernel_reach_url == "http://other:1/"
    monkeypatch.setenv("SHARD_GATEWAY_URL", "http://127.0.0.1:8888/")
    assert kernel_gateway_env(reach_url="http://other:1/")["KERNEL_SHARD_GATEWAY_URL"] == (
        "http://other:1/"
    )


def test_every_route_table_is_served_from_one_place() -> None:
    app = ShardGateway()
    app.initialize_handlers()
    routes = [*ROUTES, *GRANT_ROUTES, *SOCKET_ROUTES, *JOB_ROUTES, *WORKFLOW_ROUTES,
              *TERMINAL_ROUTES, *POOL_ROUTES]  # fmt: skip
    routes += [*COMPLETION_ROUTES, *MENTION_ROUTES]
    assert app.handlers == routes == list(ALL_ROUTES)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerApp]:
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "SHARD_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path / "no-config"))
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNEL_SHARD_TRUST_PROJECT", raising=False)
    # only the extension the config names, none of what this environment's config dirs enable
    monkeypatch.setattr(ServerApp, "find_server_extensions", lambda self: None)
    app = ServerApp.instance(
        config=Config({"ServerApp": {"jpserver_extensions": {EXTENSION: True}}})
    )
    yield app
    ServerApp.clear_instance()


@pytest.mark.filterwarnings("ignore:ServerApp.token config is deprecated:DeprecationWarning")
async def test_a_server_loads_it_configured_and_its_stop_closes_the_coordinator(
    server: ServerApp, tmp_path: Path
) -> None:
    server.initialize(
        argv=[
            f"--ServerApp.root_dir={tmp_path}",
            "--ServerApp.reraise_server_extension_failures=True",
            "--ShardGateway.trust_project=True",
        ],
        new_httpserver=False,
    )
    (gateway,) = server.extension_manager.extension_apps[EXTENSION]
    assert isinstance(gateway, ShardGateway)
    assert gateway.trust_project is True
    settings = server.web_app.settings
    assert settings[TRUST_KEY] is True
    coordinator = settings[COORDINATOR_KEY]
    assert coordinator is gateway.coordinator
    assert coordinator.trust_project is True
    assert settings["shard_registry"].reach_url == ""
    assert type(server.kernel_manager) is PooledKernelManager  # the warm pool's, of size 1
    assert server.kernel_manager.pool_size == 1
    patterns = {
        rule.matcher.regex.pattern for rule in server.web_app.default_router.rules[0].target.rules
    }
    assert {f"/{path.lstrip('/')}$" for path, _ in ALL_ROUTES} <= patterns
    assert coordinator._closing is False
    await server.cleanup_extensions()  # the first step of ServerApp.stop(), before the kernels
    assert coordinator._closing is True


@pytest.mark.filterwarnings("ignore:ServerApp.token config is deprecated:DeprecationWarning")
def test_a_configured_kernel_manager_is_left_alone(server: ServerApp, tmp_path: Path) -> None:
    chosen = "jupyter_server.services.kernels.kernelmanager.AsyncMappingKernelManager"
    server.initialize(
        argv=[f"--ServerApp.root_dir={tmp_path}", f"--ServerApp.kernel_manager_class={chosen}"],
        new_httpserver=False,
    )
    assert type(server.kernel_manager).__name__ == "AsyncMappingKernelManager"

"""JupyterHub with Shard in every single-user server (docs/DEPLOY in the README).

Nothing Shard-specific runs in the hub: each user's server is a plain `jupyterhub-singleuser`
with Shard installed, so its extension loads under `/user/<name>/` and serves
`/user/<name>/shard/api/…` with the hub's own authentication (OAuth cookies for browsers, hub
API tokens for scripts: `Authorization: token <hub token>`). What Shard needs from the spawner is
where each user's agent state lives (`SHARD_HOME`) and, for containers, the `shard` kernelspec.

Run: `jupyterhub -f docs/deploy/jupyterhub/jupyterhub_config.py`; the variables below pick the
address, the Python environment with Shard, and the state root (defaults for one machine).
tests/integration/gateway/test_jupyterhub.py loads this file and only points it at temporary
ports and folders.
"""

import os
import sys

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (JupyterHub's config loader)

c.JupyterHub.bind_url = os.environ.get("SHARD_HUB_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_bind_url = os.environ.get("SHARD_HUB_API_URL", "http://127.0.0.1:8081")

# Who may log in. DummyAuthenticator lets anyone in: replace it (OAuthenticator, LDAP, …) in
# any real deployment. Shard adds no login of its own: it trusts the hub's.
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True

# Each user's server: a local process here; DockerSpawner / KubeSpawner take the same settings.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = os.environ.get(
    "SHARD_HUB_HOMES", "/tmp/shard-hub-homes/{username}"
)
_bin = os.path.dirname(sys.executable)
c.Spawner.cmd = [os.environ.get("SHARD_SINGLEUSER", os.path.join(_bin, "jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab"
_state_root = os.environ.get("SHARD_HUB_STATE", os.path.expanduser("~/.shard-hub"))


def _shard_home(spawner):  # one agent registry per user, kept across server restarts
    return os.path.join(_state_root, spawner.user.name)


c.Spawner.environment = {"SHARD_HOME": _shard_home}

# The proxy: node's configurable-http-proxy (`npm install -g configurable-http-proxy`). Not the
# Python port on PyPI: it drops the WebSocket subprotocol the server selected, and JupyterLab's
# (and Shard's) kernel connections then speak JSON to a server that expects v1 frames.
c.ConfigurableHTTPProxy.command = [os.environ.get("SHARD_HUB_PROXY", "configurable-http-proxy")]
c.JupyterHub.cleanup_servers = True

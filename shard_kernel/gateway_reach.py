"""How an agent kernel on a remote kernel gateway reaches the Shard server's subagent routes.

A kernel the server starts itself inherits `SHARD_GATEWAY_URL` and `SHARD_GATEWAY_TOKEN` (the
jobs extension puts them in the server's environment), so its subagent tools are there. A
kernel a kernel gateway starts (`--gateway-url`: jupyter-kernel-gateway, Enterprise Gateway)
gets only the `KERNEL_*` variables of the create request, so without being told it has no
subagent tools. The server therefore sends `KERNEL_SHARD_GATEWAY_URL` and
`KERNEL_SHARD_GATEWAY_TOKEN` (the URL as `ShardGateway.kernel_reach_url` says, by default
`SHARD_KERNEL_GATEWAY_URL`, when the kernels reach the server at another address than its
own), and the kernel moves them to the plain names before anything reads its environment. The
token travels only in the create request and the kernel's process environment: no file, and
the `KERNEL_` copy is removed at adoption, so a bash command sees neither name (`*_TOKEN` is a
secret name, scrubbed like the local path's).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping

URL = "SHARD_GATEWAY_URL"
TOKEN = "SHARD_GATEWAY_TOKEN"
KERNEL_URL = "KERNEL_SHARD_GATEWAY_URL"
KERNEL_TOKEN = "KERNEL_SHARD_GATEWAY_TOKEN"
SERVER_SETTING = "SHARD_KERNEL_GATEWAY_URL"
"""Set on the server when the kernels reach it at another URL than its own."""


def kernel_gateway_env(
    env: Mapping[str, str] | None = None, *, reach_url: str | None = None
) -> dict[str, str]:
    """What a remote kernel needs to reach this server (nothing before the server advertises).
    `reach_url`: the server's `ShardGateway.kernel_reach_url` (None: `SHARD_KERNEL_GATEWAY_URL`,
    the setting's default)."""
    env = os.environ if env is None else env
    given = env.get(SERVER_SETTING, "") if reach_url is None else reach_url
    url = given.strip() or env.get(URL, "").strip()
    if not url:
        return {}
    return {KERNEL_URL: url, KERNEL_TOKEN: env.get(TOKEN, "")}


def adopt_kernel_gateway(env: MutableMapping[str, str] | None = None) -> None:
    """In the kernel: the `KERNEL_` pair, when given, becomes SHARD_GATEWAY_URL/TOKEN."""
    env = os.environ if env is None else env
    url = env.pop(KERNEL_URL, "").strip()
    token = env.pop(KERNEL_TOKEN, "").strip()
    if url:
        env[URL] = url
        env[TOKEN] = token

"""The coordinator's kernel client for a kernel a remote kernel gateway hosts (`--gateway-url`).

jupyter_server's `GatewayKernelClient` (2.21) opens its channels WebSocket with no headers, so a
kernel gateway that wants a token (`KG_AUTH_TOKEN`, Enterprise Gateway's auth) answers 401 and
the coordinator could never attach to a child there. Browser and REST traffic is unaffected (it
goes through `GatewayClient.load_connection_args`, which adds the auth header); this client opens
the same socket with those same connection headers and is otherwise the stock one.
"""

from __future__ import annotations

from threading import Thread
from typing import Any

import websocket
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_server.gateway.gateway_client import GatewayClient
from jupyter_server.gateway.managers import GatewayKernelClient, GatewayKernelManager
from jupyter_server.utils import ensure_async, url_escape, url_path_join


class AuthenticatedGatewayKernelClient(GatewayKernelClient):
    async def start_channels(
        self,
        shell: bool = True,
        iopub: bool = True,
        stdin: bool = True,
        hb: bool = True,
        control: bool = True,
    ) -> None:
        gateway = GatewayClient.instance()
        url = url_path_join(
            gateway.ws_url or "", gateway.kernels_endpoint, url_escape(self.kernel_id), "channels"
        )
        headers: dict[str, str] = dict(gateway.load_connection_args().get("headers") or {})
        ssl = {"ca_certs": gateway.ca_certs, "certfile": gateway.client_cert}
        ssl["keyfile"] = gateway.client_key
        self.channel_socket = websocket.create_connection(
            url,
            timeout=gateway.KERNEL_LAUNCH_TIMEOUT,
            enable_multithread=True,
            sslopt=ssl,
            header=headers,
        )
        await ensure_async(
            AsyncKernelClient.start_channels(
                self, shell=shell, iopub=iopub, stdin=stdin, hb=hb, control=control
            )
        )
        self.response_router = Thread(target=self._route_responses)
        self.response_router.start()


def kernel_client(kernel: Any) -> Any:
    """A client for `kernel` (a local kernel manager's own, or the authenticated gateway one)."""
    if isinstance(kernel, GatewayKernelManager):
        kernel.client_factory = AuthenticatedGatewayKernelClient
    return kernel.client()

"""Agents behind a gateway, driven from a notebook: finding the gateway, its registry over REST,
`RemoteAgent` (an AgentController over the `shard` comm), the pushed orchestrator events
(`EventFeed`) and the live dashboard.

Everything here that waits on the network runs on one background event-loop thread
(`LoopThread`), so a `%%shard` cell returns at once and widget clicks, which arrive on the
kernel's main thread, are handed over to it.
"""

from shard_kernel.remote.agent import RemoteAgent
from shard_kernel.remote.events import EventFeed
from shard_kernel.remote.hub import RemoteHub
from shard_kernel.remote.link import GatewayError, GatewayLink, NoGatewayError
from shard_kernel.remote.loop import LoopThread

__all__ = [
    "EventFeed",
    "GatewayError",
    "GatewayLink",
    "LoopThread",
    "NoGatewayError",
    "RemoteAgent",
    "RemoteHub",
]

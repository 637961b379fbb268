"""The floor under B3b: the least a Python process pair, and a Python relay, cost on this machine.

Two tiny servers, each in its own process on 127.0.0.1, for the rows B3b labels "floor":

- `echo`: a pyzmq ROUTER that sends every message straight back, with its own receive time
  (`time.time()`, 8 bytes) as the first frame — no ipykernel, no Session, no JSON, no threads.
- `relay`: a tornado WebSocket server that forwards every binary message to that echo over a
  ZMQ DEALER and writes the echo's answer (receive time + message) back to the WebSocket: what
  any Python relay must do at least (one WebSocket read and write, one ZMQ send and receive).
  TCP_NODELAY and no compression, as the real server; it serves `/api/kernels/<id>/channels`
  so the bench's own WebSocket client connects to it unchanged.

    python -m bench._floor echo <zmq port>
    python -m bench._floor relay <http port> <zmq port of the echo>
"""

from __future__ import annotations

import asyncio
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STAMP = struct.Struct("<d")


def echo(port: int) -> None:
    import zmq

    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.bind(f"tcp://127.0.0.1:{port}")
    while True:
        identity, *frames = router.recv_multipart(copy=False)
        router.send_multipart([identity, STAMP.pack(time.time()), *frames], copy=False)


def relay(port: int, echo_port: int) -> None:
    import zmq
    from tornado.web import Application
    from tornado.websocket import WebSocketHandler
    from zmq.eventloop.zmqstream import ZMQStream

    ctx = zmq.Context()

    class Relay(WebSocketHandler):
        def open(self, *args: Any) -> None:
            self.set_nodelay(True)
            self.dealer = ctx.socket(zmq.DEALER)
            self.dealer.connect(f"tcp://127.0.0.1:{echo_port}")
            self.stream = ZMQStream(self.dealer)
            self.stream.on_recv(self._back, copy=True)

        def select_subprotocol(self, subprotocols: list[str]) -> str | None:
            return subprotocols[0] if subprotocols else None

        def on_message(self, message: str | bytes) -> None:
            self.dealer.send(message if isinstance(message, bytes) else message.encode())

        def _back(self, frames: list[bytes]) -> None:
            self.write_message(b"".join(frames), binary=True)

        def on_close(self) -> None:
            self.stream.close()

    async def serve() -> None:
        Application([(r"/api/kernels/[^/]+/channels", Relay)]).listen(port, "127.0.0.1")
        await asyncio.Event().wait()

    asyncio.run(serve())


def spawn(*args: str) -> subprocess.Popen[bytes]:
    root = str(Path(__file__).resolve().parent.parent)
    return subprocess.Popen([sys.executable, "-m", "bench._floor", *args], cwd=root)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


SERVERS: dict[str, Callable[..., None]] = {"echo": echo, "relay": relay}

if __name__ == "__main__":
    SERVERS[sys.argv[1]](*(int(a) for a in sys.argv[2:]))

"""IOPubHold: what the main thread publishes while it handles a request reaches the IOPub thread
in one wake-up, once the request is answered or waits.

ipykernel sends IOPub messages from a thread of its own: each message handed to it wakes that
thread, and the woken thread takes the GIL, so the main thread waits for it to finish sending
before it can go on (0.15-0.25 ms per message, measured on the main thread of an agent kernel on
these machines, against a few µs when the thread is already awake). An empty cell publishes
`busy` and `execute_input` before its reply: two such waits on the reply's path.

While a hold is on, the main thread's messages are kept in order and handed over together on
`release`; the kernel holds from the start of a shell request until the request's task first
waits (or a turn starts, or a barrier needs the thread to have sent everything). A message from
any other thread releases the hold first, so IOPub order is kept across threads.
"""

from __future__ import annotations

import threading
from typing import Any

from ipykernel.iostream import BackgroundSocket

Held = list[tuple[tuple[Any, ...], dict[str, Any]]]


class IOPubHold(BackgroundSocket):
    """ipykernel's BackgroundSocket (the kernel's `iopub_socket`), with a hold."""

    def __init__(self, io_thread: Any) -> None:
        super().__init__(io_thread)
        # BackgroundSocket forwards other attribute writes to the zmq socket
        object.__setattr__(self, "_held", None)
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "_main", threading.get_ident())

    @property
    def holding(self) -> bool:
        return self._held is not None

    def hold(self) -> bool:
        """Keep the main thread's messages until `release`. False when already holding."""
        with self._lock:
            if self._held is not None:
                return False
            object.__setattr__(self, "_held", [])
            return True

    def release(self) -> None:
        """Hand everything held to the IOPub thread (one wake-up) and stop holding."""
        with self._lock:
            held: Held | None = self._held
            object.__setattr__(self, "_held", None)
        if held:
            self._hand_over(held)

    def send_multipart(self, *args: Any, **kwargs: Any) -> None:
        if self._held is not None:
            if threading.get_ident() == self._main:
                with self._lock:
                    if self._held is not None:
                        self._held.append((args, kwargs))
                        return
            else:
                self.release()  # what the main thread published first goes first
        self._hand_over([(args, kwargs)])

    def _hand_over(self, messages: Held) -> None:
        thread: Any = self.io_thread
        send = getattr(thread, "_really_send", None)
        if send is None:  # an ipykernel without it: one hand-over per message, as before
            for args, kwargs in messages:
                thread.send_multipart(*args, **kwargs)
            return

        def send_all() -> None:
            for args, kwargs in messages:
                send(*args, **kwargs)

        thread.schedule(send_all)

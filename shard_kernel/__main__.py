"""`python -m shard_kernel -f <connection file>`: start one agent kernel."""

from __future__ import annotations


def main() -> None:
    import faulthandler
    import logging
    import signal

    from ipykernel.kernelapp import IPKernelApp

    from shard_kernel.gateway_reach import adopt_kernel_gateway
    from shard_kernel.state_home import adopt_kernel_home

    adopt_kernel_home()  # a kernel on a remote gateway keeps its state where the server reads
    adopt_kernel_gateway()  # ... and reaches the server's subagent routes
    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>` dumps every thread's stack

    from shard_kernel.kernel import ShardKernel

    class ShardKernelApp(IPKernelApp):
        def init_sockets(self) -> None:
            super().init_sockets()
            # No shell-channel thread, so no kernel subshells: ipykernel 7's thread reads the
            # shell socket and hands every request to the main thread and every reply back
            # (about 0.7 ms per round trip here). Subshells let a Python kernel run code beside a
            # busy cell; an agent kernel never blocks its loop (a turn is awaited, and widget and
            # comm messages are dispatched while a cell runs), so it has nothing to run there.
            # kernel_info then does not advertise subshells, and JupyterLab does not ask.
            self.shell_channel_thread = None

        def _configure_logging(self) -> None:
            super()._configure_logging()
            # traitlets sets the application's logger to DEBUG and leaves the filtering to its
            # handlers, so each of ipykernel's four `log.debug` calls per request built a record
            # (and looked up its caller) to be thrown away. The logger passes what some handler
            # takes, and no less.
            log = self.log
            if isinstance(log, logging.Logger):
                level = min((h.level for h in log.handlers), default=logging.DEBUG)
                log.setLevel(max(level, 1))  # a NOTSET handler takes everything

        def start(self) -> None:
            super().start()  # returns once shutdown_request has stopped the shell loop
            # The control thread still publishes a last `idle` on IOPub after shutdown_reply. At
            # exit, atexit stops the IOPub thread (before app.close(), which joins the control
            # thread); a stop that lands between that publish's `is_alive()` check and its
            # wake-up send leaves the send blocked for good, and close() joins forever: the
            # kernel never exits by itself (ipykernel 7.4; 5 shutdowns in 91 here). So let the
            # control thread finish while IOPub is still running.
            control = self.control_thread
            if control is not None and control.is_alive():
                control.stop()
                control.join(timeout=5)

    # outstream_class=None: the agent never prints to stdout, and without IPython's OutStream there
    # is no flush to a stopped IOPub thread to wait on at shutdown (the 2.6 s shutdown stall).
    ShardKernelApp.launch_instance(kernel_class=ShardKernel, outstream_class=None)


if __name__ == "__main__":
    main()

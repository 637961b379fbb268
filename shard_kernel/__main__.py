"""`python -m shard_kernel -f <connection file>`: start one agent kernel."""

from __future__ import annotations


def main() -> None:
    import faulthandler
    import signal

    from ipykernel.kernelapp import IPKernelApp

    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>` dumps every thread's stack

    from shard_kernel.kernel import ShardKernel

    # outstream_class=None: the agent never prints to stdout, and without IPython's OutStream there
    # is no flush to a stopped IOPub thread to wait on at shutdown (the 2.6 s shutdown stall).
    IPKernelApp.launch_instance(kernel_class=ShardKernel, outstream_class=None)


if __name__ == "__main__":
    main()

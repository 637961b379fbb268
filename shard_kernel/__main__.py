"""`python -m shard_kernel -f <connection file>`: start one agent kernel."""

from __future__ import annotations


def main() -> None:
    import faulthandler
    import signal

    from shard_kernel.warm_start import boot_collections

    boot_collections()  # until the agent is up (ShardKernel._boot settles them)
    from shard_kernel.gateway_reach import adopt_kernel_gateway
    from shard_kernel.lazy_iri import defer
    from shard_kernel.state_home import adopt_kernel_home

    adopt_kernel_home()  # a kernel on a remote gateway keeps its state where the server reads
    adopt_kernel_gateway()  # ... and reaches the server's subagent routes
    defer()  # nbformat's jsonschema: its IRI grammar is built only if an IRI is validated
    faulthandler.register(signal.SIGUSR1)  # `kill -USR1 <pid>` dumps every thread's stack

    from shard_kernel.iopub_hold import kernel_app_class
    from shard_kernel.kernel import ShardKernel

    # outstream_class=None: the agent never prints to stdout, and without IPython's OutStream there
    # is no flush to a stopped IOPub thread to wait on at shutdown (the 2.6 s shutdown stall).
    kernel_app_class().launch_instance(kernel_class=ShardKernel, outstream_class=None)


if __name__ == "__main__":
    main()

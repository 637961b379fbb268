"""Real `shard` kernels through jupyter_client."""

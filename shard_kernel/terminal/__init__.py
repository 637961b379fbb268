"""Terminal rendering of agent events: the transcript `shard run` and `shard demo` print."""

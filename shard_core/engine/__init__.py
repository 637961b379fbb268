"""Engine: session log, turn loop, registry, gate, modes, compaction, recall, loaders."""

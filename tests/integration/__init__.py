"""Integration tests: real servers on 127.0.0.1, real kernels, real SDK clients."""

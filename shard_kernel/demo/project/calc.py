"""A tiny calculator with one bug for the Shard demo to find."""


def add(a, b): return a - b


def multiply(a, b):
    return a * b

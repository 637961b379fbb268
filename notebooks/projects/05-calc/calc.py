"""A tiny calculator with one bug for notebook 05 to plan and fix."""


def add(a: int, b: int) -> int:
    return a - b


def multiply(a: int, b: int) -> int:
    return a * b

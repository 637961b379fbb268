"""Stock levels for a small shop."""


def restock(stock: dict[str, int], item: str, amount: int) -> dict[str, int]:
    """A copy of `stock` with `amount` more of `item`."""
    updated = dict(stock)
    updated[item] = amount
    return updated

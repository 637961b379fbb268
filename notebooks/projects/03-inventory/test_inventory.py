import unittest

from inventory import restock


class Restock(unittest.TestCase):
    def test_adds_to_what_is_there(self) -> None:
        got = restock({"apples": 3}, "apples", 2)
        assert got == {"apples": 5}, f"restocking 3 apples with 2 gives {got}"

    def test_a_new_item(self) -> None:
        got = restock({}, "pears", 4)
        assert got == {"pears": 4}, f"restocking no pears with 4 gives {got}"

    def test_leaves_the_original_alone(self) -> None:
        stock = {"apples": 3}
        restock(stock, "apples", 2)
        assert stock == {"apples": 3}, f"the original stock became {stock}"

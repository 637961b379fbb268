import unittest

from wordcount import count_words


class CountWords(unittest.TestCase):
    def test_two_words(self) -> None:
        got = count_words("hello world")
        assert got == 2, f"count_words('hello world') is {got}, not 2"

    def test_empty_text_has_no_words(self) -> None:
        got = count_words("")
        assert got == 0, f"count_words('') is {got}, not 0"

    def test_double_spaces(self) -> None:
        got = count_words("one  two")
        assert got == 2, f"count_words('one  two') is {got}, not 2"

    def test_newlines_separate_words(self) -> None:
        got = count_words("one\ntwo three")
        assert got == 3, f"count_words('one\\ntwo three') is {got}, not 3"

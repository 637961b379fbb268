"""Word counts for a text editor's status bar."""


def count_words(text: str) -> int:
    return len(text.split(" "))

"""Text decoding: whether a file's bytes are text, and which encoding reads them back exactly."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Encoding = Literal["utf-8", "utf-8-sig", "latin-1"]

BINARY_SNIFF_BYTES = 8192
_UTF8_BOM = b"\xef\xbb\xbf"
# C0 controls other than tab/newline/vertical tab/form feed/carriage return/escape, plus C1
# controls: real latin-1 prose never has them, while binary data almost always does.
_NON_TEXT = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: Encoding

    def encode(self, text: str) -> bytes:
        """`text` in this file's encoding; raises UnicodeEncodeError for latin-1 misfits."""
        return text.encode(self.encoding)


def decode_text(data: bytes) -> DecodedText | None:
    """The text in `data`, or None when the bytes look binary.

    A NUL byte in the first 8 KB means binary (as git and grep decide). Otherwise UTF-8 (with or
    without a BOM) is tried, and latin-1 is the fallback only for bytes free of control codes.
    """
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    if data.startswith(_UTF8_BOM):
        encoding: Encoding = "utf-8-sig"
    else:
        encoding = "utf-8"
    try:
        return DecodedText(data.decode(encoding), encoding)
    except UnicodeDecodeError:
        pass
    text = data.decode("latin-1")
    if _NON_TEXT.search(text):
        return None
    return DecodedText(text, "latin-1")


def split_lines(text: str) -> list[str]:
    """Lines as `cat -n` and editors count them: only \\n ends a line; a trailing \\r is dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]

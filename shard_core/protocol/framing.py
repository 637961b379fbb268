"""JSONL framing for streamed transports (stdio): LF-only records, incremental decoding.

Records are split on the LF byte and nothing else. U+2028/U+2029 are legal inside JSON strings
and must never end a record (Node's readline and Python's str.splitlines both split on them).
Splitting bytes on 0x0A is safe for UTF-8: that byte never occurs inside a multi-byte sequence.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from shard_core.types.errors import FramingError

DEFAULT_MAX_RECORD = 64 * 1024 * 1024


def encode_record(value: BaseModel | dict[str, Any]) -> bytes:
    """One record: compact JSON plus LF. A raw LF cannot appear inside: json escapes it."""
    if isinstance(value, BaseModel):
        text = value.model_dump_json()
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded line: `value` when it parsed, otherwise `error` (the stream goes on)."""

    line: int
    value: Any = None
    error: FramingError | None = None


class JsonlDecoder:
    """Feed it bytes as they arrive; it returns every complete record, in order."""

    def __init__(self, max_record_bytes: int = DEFAULT_MAX_RECORD) -> None:
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no LF
        self._line = 0
        self._max = max_record_bytes
        self._skipping = False  # inside an oversized record, dropping bytes until its LF

    def feed(self, data: bytes) -> list[Record]:
        self._buf += data
        out: list[Record] = []
        while (nl := self._buf.find(b"\n", self._scanned)) != -1:
            raw = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            self._scanned = 0
            if self._skipping:
                self._skipping = False
                continue
            record = self._decode(raw)
            if record is not None:
                out.append(record)
        self._scanned = len(self._buf)
        if len(self._buf) > self._max and not self._skipping:
            self._line += 1
            out.append(self._error(f"record exceeds {self._max} bytes; skipped"))
            self._skipping = True
        if self._skipping:
            self._buf.clear()
            self._scanned = 0
        return out

    def close(self) -> list[Record]:
        """End of stream: a final record without its LF is still a record."""
        rest = bytes(self._buf)
        self._buf.clear()
        self._scanned = 0
        if self._skipping or not rest.strip():
            return []
        record = self._decode(rest)
        return [record] if record is not None else []

    def _decode(self, raw: bytes) -> Record | None:
        self._line += 1
        if not raw.strip():
            return None  # blank lines between records are tolerated
        try:
            return Record(line=self._line, value=json.loads(raw.decode("utf-8")))
        except UnicodeDecodeError as exc:
            return self._error(f"invalid UTF-8 at byte {exc.start}")
        except json.JSONDecodeError as exc:
            return self._error(f"invalid JSON: {exc.msg} at column {exc.colno}")

    def _error(self, message: str) -> Record:
        return Record(line=self._line, error=FramingError(message, line=self._line))


def decode_lines(chunks: Iterator[bytes]) -> Iterator[Record]:
    """Decode an iterator of byte chunks (e.g. a file read in blocks)."""
    decoder = JsonlDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()


async def read_records(reader: Any, chunk_size: int = 65536) -> AsyncIterator[Record]:
    """Decode an asyncio.StreamReader-like object until EOF."""
    decoder = JsonlDecoder()
    while chunk := await reader.read(chunk_size):
        for record in decoder.feed(chunk):
            yield record
    for record in decoder.close():
        yield record

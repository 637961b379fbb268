"""BlobStore: the content-addressed store of file versions under `SHARD_HOME/checkpoints/`.

A blob's id is the SHA-256 of the file's bytes (hex); it is kept once however many tools or
sessions saw it (`objects/ab/cdef…`), compressed (zstd when the `zstandard` package is
installed, else zlib), written atomically. A blob is checked against its id on every read, so
a damaged or missing one is named, never restored. A file larger than `max_file_bytes` is not
kept: `put` says so and the checkpoint records why.

`put` hashes in the caller and hands the compressing and the file's creation (half a
millisecond on this disk, most of a checkpoint's cost) to one writer thread: a tool call waits
for neither (unless `max_pending_bytes` wait already). Until written, a blob is served from
memory; `flush` waits for the writes (the capability flushes at each turn boundary and after
each rewind or revert, and the thread finishes its queue before the process exits), so another
process sees every blob of a finished turn or rewind on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

log = logging.getLogger("shard.checkpoints")

DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024
"""A file larger than this is not kept (a checkpoint says so); `checkpoints.max_file_bytes`."""

MAX_PENDING_BYTES = 64 * 1024 * 1024
"""At most this much waits in memory for the writer (a first scan of a large workspace): a
`put` beyond it first waits for the writes before it."""

_RAW, _ZLIB, _ZSTD = b"R", b"Z", b"S"


def _zstd() -> ModuleType | None:
    try:
        import zstandard  # type: ignore[import-not-found]  # optional: zlib is the default
    except ImportError:
        return None
    return zstandard  # type: ignore[no-any-return]


class BlobError(Exception):
    """A blob that cannot be read: missing or damaged. `blob` names it."""

    def __init__(self, blob: str, message: str) -> None:
        super().__init__(message)
        self.blob = blob


@dataclass(frozen=True)
class Kept:
    """What `put` did: the blob id, or why the content was not kept."""

    blob: str | None
    note: str | None = None


def blob_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStore:
    def __init__(
        self,
        root: Path,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_pending_bytes: int = MAX_PENDING_BYTES,
    ) -> None:
        self.root = root
        self.objects = root / "objects"
        self.max_file_bytes = max_file_bytes
        self._known: set[str] = set()
        self._folders: set[str] = set()
        """the `objects/ab` folders known to exist (one mkdir per folder, not per blob)"""
        self._pending: dict[str, bytes] = {}
        """blobs handed to the writer and not yet on disk, by id"""
        self._pending_bytes = 0
        self.max_pending_bytes = max_pending_bytes
        self._lock = threading.Lock()
        self._writer: ThreadPoolExecutor | None = None
        self._last: Future[None] | None = None
        zstd = _zstd()
        self._zstd_c = zstd.ZstdCompressor(level=3) if zstd else None
        self._zstd_d = zstd.ZstdDecompressor() if zstd else None

    def path(self, blob: str) -> Path:
        return self.objects / blob[:2] / blob[2:]

    def has(self, blob: str) -> bool:
        return blob in self._known or self.path(blob).is_file()

    def put(self, data: bytes, blob: str | None = None) -> Kept:
        """Keep `data` (its id may be given when already computed); dedup by content."""
        if len(data) > self.max_file_bytes:
            return Kept(
                None, f"too big to keep ({_size(len(data))} > {_size(self.max_file_bytes)})"
            )
        blob = blob or blob_id(data)
        if blob in self._known:
            return Kept(blob)
        if self._pending_bytes + len(data) > self.max_pending_bytes:
            self.flush()
        with self._lock:
            self._known.add(blob)
            self._pending[blob] = data
            self._pending_bytes += len(data)
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="shard-blobs")
        self._last = self._writer.submit(self._keep, blob, data)
        return Kept(blob)

    def flush(self) -> None:
        """Wait until every blob `put` so far is on disk (or its failure logged)."""
        last = self._last
        if last is not None:
            last.result()

    def _keep(self, blob: str, data: bytes) -> None:
        """The writer thread: one blob compressed and written, unless on disk already."""
        target = self.path(blob)
        try:
            if not target.is_file():
                self._write(target, self._pack(data))
        except OSError:
            log.warning("checkpoint blob %s not written", blob[:12], exc_info=True)
            with self._lock:
                self._known.discard(blob)  # a later put tries again
        finally:
            with self._lock:
                if self._pending.pop(blob, None) is not None:
                    self._pending_bytes -= len(data)

    def get(self, blob: str) -> bytes:
        """The bytes of `blob`; BlobError when it is missing or does not match its id."""
        with self._lock:
            waiting = self._pending.get(blob)
        if waiting is not None:
            return waiting  # hashed when put: its id is its content's
        try:
            packed = self.path(blob).read_bytes()
        except FileNotFoundError:
            raise BlobError(
                blob, f"checkpoint blob {blob[:12]} is missing from the store"
            ) from None
        except OSError as exc:
            raise BlobError(blob, f"checkpoint blob {blob[:12]} cannot be read: {exc}") from None
        try:
            data = self._unpack(packed)
        except Exception as exc:  # zlib.error, zstd errors, an unknown tag
            raise BlobError(blob, f"checkpoint blob {blob[:12]} is corrupt ({exc})") from None
        if blob_id(data) != blob:
            raise BlobError(blob, f"checkpoint blob {blob[:12]} is corrupt (its hash differs)")
        return data

    def size(self) -> tuple[int, int]:
        """(blobs, bytes on disk) of the whole store."""
        self.flush()
        count = total = 0
        if self.objects.is_dir():
            for folder in self.objects.iterdir():
                for item in folder.iterdir():
                    count += 1
                    total += item.stat().st_size
        return count, total

    # ------------------------------------------------------------ packing

    def _pack(self, data: bytes) -> bytes:
        if len(data) < 64:
            return _RAW + data
        if self._zstd_c is not None:
            packed = _ZSTD + self._zstd_c.compress(data)
        else:
            packed = _ZLIB + zlib.compress(data, 1)
        return packed if len(packed) < len(data) + 1 else _RAW + data

    def _unpack(self, packed: bytes) -> bytes:
        tag, body = packed[:1], packed[1:]
        if tag == _RAW:
            return body
        if tag == _ZLIB:
            return zlib.decompress(body)
        if tag == _ZSTD and self._zstd_d is not None:
            return self._zstd_d.decompress(body)
        if tag == _ZSTD:
            raise ValueError("written with zstd, which is not installed now")
        raise ValueError(f"unknown packing {tag!r}")

    def _write(self, target: Path, data: bytes) -> None:
        if target.parent.name not in self._folders:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._folders.add(target.parent.name)
        temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{n} bytes"

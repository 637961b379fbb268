"""Shared bench helpers: sample summaries (median, p90), plain-text tables, the machine line."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Summary:
    """Median and 90th percentile of one set of samples, in seconds."""

    median: float
    p90: float
    count: int


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0 to 100), linearly interpolated between the closest ranks."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(samples: Sequence[float]) -> Summary:
    return Summary(percentile(samples, 50), percentile(samples, 90), len(samples))


def ms(seconds: float) -> str:
    """Seconds as milliseconds, three significant-ish digits."""
    value = seconds * 1000
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded so it also reads well in a terminal."""
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows, strict=False)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def table_rows(out: str, first_header: str) -> list[list[str]]:
    """The body rows of the Markdown `table` in `out` whose first header cell is `first_header`
    (the reading side of `table`, for the bench smoke tests)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} "))
    rows: list[list[str]] = []
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


PACKAGES = ("shard_core", "shard_kernel", "shard_widgets")


def compile_sources(root: Path) -> str:
    """Write the bytecode of Shard's own packages under `root`, as pip does when it installs the
    wheel, and say so. A kernel started from a checkout under `PYTHONDONTWRITEBYTECODE=1` (this
    machine's environment sets it) would otherwise compile every module it imports at each
    start (measured: a scripted agent's boot took 3.3 CPU-s instead of 1.1), while the anchors'
    site-packages are compiled."""
    import compileall

    ok = all(compileall.compile_dir(root / name, quiet=1) for name in PACKAGES)
    return f"bytecode of {', '.join(PACKAGES)} written first{'' if ok else ' (some failed)'}"


def machine() -> str:
    """What the numbers were measured on: cores, load (other work skews them), Python, kernel."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} cores, load {load:.1f}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def filesystem(path: Path) -> str:
    """The filesystem type and device `path` lives on, from /proc/mounts (Linux only)."""
    best = ("", "unknown", "?")
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return "unknown filesystem"
    resolved = str(path.resolve())
    for mount in mounts:
        device, point, fstype, *_ = mount.split()
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):
            best = (point, fstype, device)
    return f"{best[1]} ({best[2]} on {best[0]})"

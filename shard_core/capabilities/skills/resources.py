"""A skill's resource listing: paths under scripts/, references/, assets/ — names, never bodies."""

from __future__ import annotations

from pathlib import Path

RESOURCE_DIRS = ("scripts", "references", "assets")
MAX_RESOURCES = 256
MAX_LEVELS = 8


def list_resources(directory: Path) -> tuple[list[str], int]:
    """Sorted relative paths (at most 256) and how many more there were."""
    found: list[str] = []
    seen: set[Path] = set()
    for top in RESOURCE_DIRS:
        _walk(directory / top, directory, 1, seen, found)
    found.sort()
    return found[:MAX_RESOURCES], max(0, len(found) - MAX_RESOURCES)


def _walk(folder: Path, base: Path, level: int, seen: set[Path], found: list[str]) -> None:
    try:
        real = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return
    if real in seen or not real.is_dir() or level > MAX_LEVELS:
        return
    seen.add(real)
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return
    for child in children:
        if child.is_dir():
            _walk(child, base, level + 1, seen, found)
        elif child.is_file():
            found.append(child.relative_to(base).as_posix())
        if len(found) > 4 * MAX_RESOURCES:
            return  # enough to know the list was cut; no need to walk a huge tree

"""Extension lifecycle: disposers in reverse install order, `reload` checks trust again before it
imports, and failures (setup, disposer) are isolated and reported with the extension's name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shard_core.contracts import ExtensionApi
from shard_core.engine.extension_host import ExtensionHost

SOURCE = """
CALLS = []

def extension(api):
    api.on("turn_end", lambda event: None)
    return lambda: CALLS.append("disposed {tag}")
"""


def _write(folder: Path, tag: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ext.py"
    path.write_text(SOURCE.format(tag=tag))
    return path


async def test_reload_checks_trust_again_before_importing(tmp_path: Path) -> None:
    folder = tmp_path / "extensions"
    _write(folder, "v1")
    trust = {"ok": True}
    host = ExtensionHost()
    await host.install_folder(folder, trusted=lambda: trust["ok"])
    assert host.installed == ["extensions/ext.py"]
    assert len(host.snapshot.handlers) == 1

    _write(folder, "v2")
    assert await host.reload("extensions/ext.py")
    assert host.installed == ["extensions/ext.py"]
    assert len(host.snapshot.handlers) == 1  # the old handler went with the old module

    trust["ok"] = False
    _write(folder, "v3")
    assert not await host.reload("extensions/ext.py")
    assert host.installed == []
    assert host.snapshot.handlers == []
    assert host.diagnostics[-1].message == "skipped: project extensions need --trust-project"


async def test_reload_runs_the_old_disposer_and_refuses_what_is_not_a_file(
    tmp_path: Path,
) -> None:
    order: list[str] = []
    marker = tmp_path / "disposed"
    folder = tmp_path / "extensions"
    folder.mkdir()
    (folder / "ext.py").write_text(
        "from pathlib import Path\n"
        "def extension(api):\n"
        f"    return lambda: Path({str(marker)!r}).write_text('yes')\n"
    )

    def bundled(api: ExtensionApi) -> Any:
        return lambda: order.append("bundled")

    host = ExtensionHost()
    await host.install("bundled", bundled)
    await host.install_folder(folder, trusted=True)
    assert await host.reload("extensions/ext.py")
    assert marker.read_text() == "yes"  # the old module's disposer ran before the re-import
    assert not await host.reload("bundled")
    assert host.diagnostics[-1].message == "cannot reload: not a file extension"
    await host.shutdown()
    assert order == ["bundled"]


async def test_a_file_linking_outside_its_folder_is_not_imported(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def extension(api):\n    raise SystemExit('imported')\n")
    folder = tmp_path / "extensions"
    folder.mkdir()
    (folder / "link.py").symlink_to(outside)
    host = ExtensionHost()
    await host.install_folder(folder, trusted=True)
    assert host.installed == []
    assert [(d.extension, d.message) for d in host.diagnostics] == [
        ("extensions/link.py", "skipped: it links outside its folder")
    ]


async def test_setup_and_disposer_failures_are_isolated_in_reverse_order() -> None:
    host = ExtensionHost()
    order: list[str] = []

    def first(api: ExtensionApi) -> Any:
        return lambda: order.append("first")

    def broken_setup(api: ExtensionApi) -> Any:
        raise RuntimeError("setup bug")

    async def third(api: ExtensionApi) -> Any:
        async def dispose() -> None:
            order.append("third")
            raise ValueError("dispose bug")

        return dispose

    assert await host.install("ext.first", first)
    assert not await host.install("ext.broken", broken_setup)
    assert await host.install("ext.third", third)
    await host.shutdown()
    assert order == ["third", "first"]
    assert [(d.extension, d.message) for d in host.diagnostics if d.level == "error"] == [
        ("ext.broken", "failed to install: RuntimeError: setup bug"),
        ("ext.third", "disposer failed: dispose bug"),
    ]

"""The prebuilt front end in shard_widgets/static/: an anywidget module, built from these sources.

No node here: the JS tests (tests/js, `npm test`) load and render the same files in jsdom.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from shard_widgets import AgentDashboard, AgentWidget, PermissionDialog, _bundle
from tests.unit.widgets._support import permission_request

ROOT = Path(__file__).resolve().parents[3]
LABEXTENSION = ROOT / "labextension"
ESM_FILES = ("agent-widget.js", "permission-dialog.js", "agent-dashboard.js")


@pytest.mark.parametrize("name", ESM_FILES)
def test_each_bundle_is_an_esm_module_with_a_default_render(name: str) -> None:
    text = (_bundle.STATIC_DIR / name).read_text(encoding="utf-8")
    exported = re.search(r"export\s*\{\s*([\w$]+) as default\s*\}", text)
    assert exported, "no default export"
    default = re.escape(exported.group(1))
    # a minified name may hold `$` (e.g. `$l`), which `\b` does not border
    definition = re.search(rf"(?<![\w$]){default}\s*=\s*\{{(.{{0,300}}?)\}};", text, re.DOTALL)
    assert definition, "the default export is not an object literal"
    assert re.search(r"\brender\(", definition.group(1)), "the default export has no render()"
    assert "require(" not in text  # bundled, nothing left to resolve at load time


def test_the_stylesheet_is_there() -> None:
    assert ".shard-widget" in (_bundle.STATIC_DIR / "shard-widgets.css").read_text(encoding="utf-8")


def test_the_widgets_ship_the_bundles() -> None:
    widgets = [AgentWidget(), PermissionDialog(permission_request(0)), AgentDashboard()]
    for widget, name in zip(widgets, ESM_FILES, strict=True):
        assert widget._esm == (_bundle.STATIC_DIR / name).read_text(encoding="utf-8")
        assert widget._css == (_bundle.STATIC_DIR / "shard-widgets.css").read_text(encoding="utf-8")


def test_the_committed_bundle_was_built_from_these_sources() -> None:
    info = _bundle.read_build_info()
    assert info["sources_sha256"] == _bundle.sources_digest(LABEXTENSION), (
        "labextension/ changed since the bundle was built: run `npm run build` in labextension/"
    )
    assert _bundle.freshness(LABEXTENSION) == "fresh"


def test_the_prebuilt_lab_extension_was_built_from_these_sources() -> None:
    lab = _bundle.LAB_DIR
    package = json.loads((lab / "package.json").read_text(encoding="utf-8"))
    assert package["name"] == "shard-jupyterlab"
    assert package["jupyterlab"]["_build"]["load"].startswith("static/remoteEntry.")
    assert (lab / package["jupyterlab"]["_build"]["load"]).is_file()
    assert "mimeExtension" in package["jupyterlab"]["_build"]
    assert json.loads((lab / "install.json").read_text(encoding="utf-8"))["packageName"] == "shard"
    assert _bundle.lab_freshness(LABEXTENSION) == "fresh", (
        "labextension/ changed since the Lab extension was built: run `npm run build`"
    )
    built = {p.name for p in (lab / "static").glob("remoteEntry.*.js")}
    assert len(built) == 1, f"stale builds left in the output: {sorted(built)}"


def test_lab_freshness_notices_missing_and_stale_builds(tmp_path: Path) -> None:
    sources, out = tmp_path / "labextension", tmp_path / "out"
    (sources / "src").mkdir(parents=True)
    (sources / "src" / "a.ts").write_text("export {};\n")
    assert _bundle.lab_freshness(sources, out) == "missing"
    (out / "static").mkdir(parents=True)
    (out / "package.json").write_text("{}")
    (out / "static" / "remoteEntry.abc.js").write_text("x")
    (out / "build-info.json").write_text(
        json.dumps({"sources_sha256": _bundle.sources_digest(sources)})
    )
    assert _bundle.lab_freshness(sources, out) == "fresh"
    (sources / "src" / "a.ts").write_text("export const changed = 1;\n")
    assert _bundle.lab_freshness(sources, out) == "stale"


def test_the_bundle_files_are_the_ones_built() -> None:
    outputs = _bundle.read_build_info()["outputs"]
    assert isinstance(outputs, dict)
    assert sorted(outputs) == sorted(_bundle.BUNDLES)
    for name, digest in outputs.items():
        assert hashlib.sha256((_bundle.STATIC_DIR / name).read_bytes()).hexdigest() == digest, name


def test_the_generated_typescript_types_match_the_schemas() -> None:
    # the same digest scripts/gen-types.mjs writes into the header (sorted names, name\0text\0)
    files = ("agent-info", "command", "event", "orchestrator-event", "render-descriptor", "reply")
    files += ("tool-result", "usage", "slash-command", "changes-review")
    digest = hashlib.sha256()
    for name in sorted(f"{f}.json" for f in files):
        digest.update(name.encode() + b"\0" + (ROOT / "schema" / name).read_bytes() + b"\0")
    header = (LABEXTENSION / "src" / "generated" / "wire.ts").read_text(encoding="utf-8")
    assert f"// schema-sha256: {digest.hexdigest()}\n" in header, (
        "schema/ changed: run `npm run gen:types` (then `npm run build`) in labextension/"
    )


def test_freshness_notices_missing_and_stale_bundles(tmp_path: Path) -> None:
    lab, static = tmp_path / "labextension", tmp_path / "static"
    (lab / "src").mkdir(parents=True)
    (lab / "src" / "a.ts").write_text("export {};\n")
    static.mkdir()
    assert _bundle.freshness(lab, static) == "missing"
    for name in _bundle.BUNDLES:
        (static / name).write_text("x")
    (static / "build-info.json").write_text(
        json.dumps({"sources_sha256": _bundle.sources_digest(lab)})
    )
    assert _bundle.freshness(lab, static) == "fresh"
    (lab / "src" / "a.ts").write_text("export const changed = 1;\n")
    assert _bundle.freshness(lab, static) == "stale"
    assert _bundle.freshness(tmp_path / "no-sources", static) == "fresh"


def test_a_missing_bundle_renders_a_message_instead_of_failing_import(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_bundle, "STATIC_DIR", tmp_path)
    esm = _bundle.esm("agent-widget.js")
    assert isinstance(esm, str)
    assert esm.startswith("export default { render({ el }) { el.textContent = ")
    assert "npm run build" in esm
    assert _bundle.css() == ""

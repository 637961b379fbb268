"""Issue 21 item 7 in `shard batch`: the summary names what the agent left out and the flag."""

from __future__ import annotations

import io
from pathlib import Path

from shard_kernel.batch import BatchOptions, run_batch
from tests.integration.batch.test_batch import project  # noqa: F401  (the fixture)


def test_the_summary_names_skipped_project_files_and_the_flag(project: Path) -> None:  # noqa: F811
    (project / "AGENTS.md").write_text("Always answer in French.\n")
    out = io.StringIO()
    assert run_batch(BatchOptions(notebook=project / "tasks.ipynb"), out) == 3, out.getvalue()
    summary = out.getvalue().splitlines()
    wrote = next(i for i, line in enumerate(summary) if line.startswith("wrote "))
    assert summary[wrote + 1 :] == [
        f"note: skipped {project.resolve() / 'AGENTS.md'}: project context needs --trust-project "
        "(in a kernel: KERNEL_SHARD_TRUST_PROJECT=1)"
    ]

    trusted = io.StringIO()
    opts = BatchOptions(notebook=project / "tasks.ipynb", trust_project=True)
    assert run_batch(opts, trusted) == 3  # cell 2's write is denied
    assert "note:" not in trusted.getvalue()

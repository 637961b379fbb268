"""shard_widgets' public names, pinned."""

from __future__ import annotations

import shard_widgets


def test_public_names() -> None:
    assert sorted(shard_widgets.__all__) == [
        "AgentController",
        "AgentDashboard",
        "AgentWidget",
        "ComposerController",
        "ControllerResult",
        "DashboardMessage",
        "MentionContext",
        "MentionRefusedError",
        "Mentions",
        "Outcome",
        "PermissionDialog",
        "ShownNotebook",
        "__version__",
    ]
    for name in shard_widgets.__all__:
        assert getattr(shard_widgets, name) is not None

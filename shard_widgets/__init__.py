"""anywidget components that render Shard's wire types inside notebooks.

`AgentWidget` (a transcript with streaming text, tool cards, permission and ui dialogs, mode,
status, usage), `PermissionDialog` (one request) and `AgentDashboard` (all agents). They render
`shard_core.types` and speak `shard_core.protocol` commands; the front end is the prebuilt
bundle in `static/`, built from `labextension/`.
"""

from shard_core import __version__
from shard_widgets._controller import (
    AgentController,
    ComposerController,
    ControllerResult,
    MentionContext,
    MentionRefusedError,
    Mentions,
    Outcome,
    ShownNotebook,
)
from shard_widgets.agent import AgentWidget
from shard_widgets.dashboard import AgentDashboard, DashboardMessage
from shard_widgets.permission import PermissionDialog

__all__ = [
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

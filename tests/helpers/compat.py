"""What a contract test of temporal_tasks/compat/ says when the installed lmms-eval breaks an assumption."""

from __future__ import annotations

LMMS_EVAL_CHANGED = "lmms-eval changed: temporal_tasks/compat/ relies on this; re-check it against the new version"

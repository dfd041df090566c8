"""The folders the tests read: the repository, the package, and the helpers' scripts and toy benchmark."""

from __future__ import annotations

from pathlib import Path

HELPERS = Path(__file__).resolve().parent
ROOT = HELPERS.parent.parent  # the repository
PACKAGE = ROOT / "temporal_tasks"
SCRIPTS = HELPERS / "scripts"  # run as scripts of their own (a process each)
TOY = HELPERS / "toybench"  # the toy benchmark: its package, dist-info and YAML folder, as an install would lay out

"""temporal-tasks: video temporal-reasoning benchmarks as lmms-eval tasks.

Importing this package is cheap on purpose: lmms-eval imports it while it loads (our entry points and the import
hook), and `temporal-tasks tasks` should answer at once, so it must not import lmms-eval, numpy or torch. The
start-up hook itself (``temporal_tasks_hook``, a top-level module) does not import it.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "lm_eval_tasks_dir", "tasks_dir"]


def _shipped_dir(name: str) -> str:
    # Inside the wheel the folder sits in the package; in a source checkout, next to it.
    here = Path(__file__).resolve().parent
    for candidate in (here / name, here.parent / name):
        if candidate.is_dir():
            return str(candidate)
    raise FileNotFoundError(
        f"temporal-tasks: no {name} directory next to {here}. Reinstall the package with `pip install temporal-tasks`."
    )


def tasks_dir() -> str:
    """Return the directory holding our task YAMLs (installed wheel or source checkout)."""
    return _shipped_dir("tasks")


def lm_eval_tasks_dir() -> str:
    """Return the directory of our EleutherAI lm-evaluation-harness tasks (the language-only controls)."""
    return _shipped_dir("tasks_lm_eval")

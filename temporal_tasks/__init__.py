"""temporal-tasks: video temporal-reasoning benchmarks as lmms-eval tasks.

Importing this package is cheap on purpose: it runs at every Python start-up through the
import hook, so it must not import lmms-eval, numpy or torch.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "lm_eval_tasks_dir", "tasks_dir"]


def tasks_dir() -> str:
    """Return the directory holding our task YAMLs (installed wheel or source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "tasks", here.parent / "tasks"):
        if candidate.is_dir():
            return str(candidate)
    raise FileNotFoundError(
        f"temporal-tasks: no task directory next to {here}. Reinstall the package with `pip install temporal-tasks`."
    )


def lm_eval_tasks_dir() -> str:
    """Return the directory of our EleutherAI lm-evaluation-harness tasks (the language-only controls)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "tasks_lm_eval", here.parent / "tasks_lm_eval"):
        if candidate.is_dir():
            return str(candidate)
    raise FileNotFoundError(
        f"temporal-tasks: no tasks_lm_eval directory next to {here}. "
        "Reinstall the package with `pip install temporal-tasks`."
    )

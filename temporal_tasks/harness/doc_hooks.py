"""lmms-eval's per-question hooks shared by every task: visuals, prompt, target, and the two answer filters.

The task YAMLs name these through the kit (``!function temporal_tasks.harness.kit.doc_to_visual``); a benchmark
with needs of its own (Vinoground's paired video) names its own hook instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from temporal_tasks.base.log import warn_once


def doc_to_visual(doc: dict) -> list[str]:
    """The doc's video paths, as a list (never a bare string: chat models would split it)."""
    return list(doc["videos"])


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The benchmark's prompt, verbatim, with optional ``pre_prompt``/``post_prompt`` kwargs around it."""
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict) -> str:
    """The gold label."""
    return doc["gold"]


class AllAnswers:
    """lmms-eval filter of our generate tasks: hands every ``--repeats`` answer to ``process_results``.

    lmms-eval's default (``take_first``) keeps only the first of the k answers a question got. With one
    answer this returns exactly what ``take_first`` does (the string), so single runs are unchanged; with
    k > 1, the list of the k answers.
    """

    def __init__(self, **kwargs: Any) -> None:
        pass

    def apply(self, resps: Iterable[Sequence[Any]], docs: Any) -> list:  # noqa: ARG002 - lmms-eval's interface
        """Per instance: its one answer as ``take_first`` gives it, or the list of its k answers."""
        return [list(r) if len(r) > 1 else (r[0] if r else "") for r in map(list, resps)]


class FirstOfRepeats:
    """lmms-eval filter of our log-likelihood tasks: their k identical requests score once (logged once)."""

    def __init__(self, **kwargs: Any) -> None:
        pass

    def apply(self, resps: Iterable[Sequence[Any]], docs: Any) -> list:  # noqa: ARG002 - lmms-eval's interface
        """``take_first``, with one log line when the requests were repeated."""
        resps = [list(r) for r in resps]
        k = max(map(len, resps), default=1)
        if k > 1:
            warn_once(
                f"--repeats {k}: a log-likelihood task has one deterministic score per question, so repeats do not "
                "apply to it; each question is scored once (the repeated requests were identical)."
            )
        return [r[0] if r else "" for r in resps]

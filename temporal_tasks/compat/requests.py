"""What lmms-eval hands a model (request arguments) and a task (loglikelihood results)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any


def generate_args(req: Any) -> tuple[Any, dict, Callable, int, str, str]:
    """A ``generate_until`` request's ``(context, gen_kwargs, doc_to_visual, doc_id, task, split)``."""
    context, gen_kwargs, doc_to_visual, doc_id, task, split = req.args
    return context, gen_kwargs, doc_to_visual, doc_id, task, split


def loglikelihood_args(req: Any) -> tuple[Any, Any, Callable, int, str, str]:
    """A ``loglikelihood`` request's ``(context, continuation, doc_to_visual, doc_id, task, split)``.

    ``continuation`` is a string for ``multiple_choice`` tasks and ``doc_to_target`` itself for plain
    ``loglikelihood`` tasks.
    """
    context, continuation, doc_to_visual, doc_id, task, split = req.args
    return context, continuation, doc_to_visual, doc_id, task, split


def request_context(req: Any) -> Any:
    """Any request's context (the prompt): its first argument."""
    return req.args[0]


def request_visuals(req: Any) -> Callable:
    """Any generate or loglikelihood request's ``doc_to_visual``: its third argument."""
    return req.args[2]


def request_doc(req: Any) -> tuple[int, str, str]:
    """Any request's ``(doc_id, task, split)``: its last three arguments (also for multi-round requests)."""
    *_, doc_id, task, split = req.args
    return doc_id, task, split


_NUMPY_WRAP = re.compile(r"\b(?:np|numpy)\.\w+\(")
_NUMBER = re.compile(r"[-+]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.I)


def loss_value(result: Any) -> float:
    """The loss of one choice's result as a ``multiple_choice`` task's ``process_results`` gets it; NaN if unreadable.

    lmms-eval 0.7.3 turns each ``(loss, is_greedy)`` tuple into its ``str()`` on the way
    (``api/instance.py::unwrap_generation_output``), so ``"(0.1, False)"``, ``"(inf, False)"`` and
    ``"(np.float64(0.1), np.True_)"`` arrive as text; a real tuple is accepted too in case a later
    version stops doing that.
    """
    while isinstance(result, list | tuple) and result and isinstance(result[0], list | tuple | str):
        result = result[0]
    value = result[0] if isinstance(result, list | tuple) and result else result
    if isinstance(value, str):
        m = _NUMBER.search(_NUMPY_WRAP.sub("", value))
        if m is None:
            return math.nan
        value = m.group(0)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan

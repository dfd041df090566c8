"""Whether the run's model watches: derived visuals (paired videos, shortcut files) are built ahead only for one.

Building a derived visual is the plugin's one heavy job, worth doing ahead only when a model will open the file.
A model declares that it reads no visuals with a ``reads_visuals = False`` attribute
(:func:`temporal_tasks.compat.model_reads_visuals`): ``temporal_replay`` does, unless it stands in for a GPU model
(``latency_ms=``, ``visuals=true``). A model without the declaration reads them (lmms-eval's models, API models,
``first_token_prob``). The decision only concerns building *ahead*: a request for a visual still gets its file,
built then if missing, whatever the model declares.
"""

from __future__ import annotations

from temporal_tasks.base.errors import DataError
from temporal_tasks.compat import READS_VISUALS, model_reads_visuals
from temporal_tasks.compat.run_context import run_context
from temporal_tasks.video.frame_count import announce, frames_known_now

__all__ = ["AHEAD", "AT_FIRST_REQUEST", "NOT_AHEAD", "when_to_build"]

AHEAD = "ahead"  # background builds start now, in process_docs
AT_FIRST_REQUEST = "at first request"  # the model is not known yet: the builds wait for its first request
NOT_AHEAD = "not ahead"  # the model reads no visuals: nothing is built ahead (nor deferred)


def when_to_build(label: str, what: str) -> str:
    """When this run builds ``label``'s derived visuals (``what``, e.g. "paired videos"): :data:`AHEAD`,
    :data:`AT_FIRST_REQUEST` or :data:`NOT_AHEAD`.

    Called from ``process_docs``. The model instance lmms-eval evaluates (on the stack: the CLI,
    ``simple_evaluate``) decides: :data:`NOT_AHEAD` when it declares ``reads_visuals=False`` (announced once),
    else :data:`AHEAD`. With no model on the stack, a model that reads visuals is assumed: :data:`AHEAD` when N is
    known now (:func:`~temporal_tasks.video.frame_count.frames_known_now`), else :data:`AT_FIRST_REQUEST` (tasks
    built before ``evaluate(lm, ...)``; only a model that reads visuals ever makes that first request). A
    ``DataError`` names the model when its declaration is not True or False.
    """
    model = run_context().model
    if model is None:
        return AHEAD if frames_known_now() else AT_FIRST_REQUEST
    try:
        reads = model_reads_visuals(model)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if reads:
        return AHEAD
    announce(
        f"{label}: no {what} built ahead: the model ({type(model).__name__}) reads no visuals ({READS_VISUALS}=False)"
    )
    return NOT_AHEAD

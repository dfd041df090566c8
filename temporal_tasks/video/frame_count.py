"""N, the frame count of every built video (paired videos, the shortcut variants' files), and where it comes from.

``TEMPORAL_TASKS_NUM_FRAMES``, else the model's frame setting (its instance attribute or ``--model_args``), else
32 (:func:`resolve_num_frames`). A model that samples the same N frames uniformly then sees exactly the frames
the builders wrote.
"""

from __future__ import annotations

import sys

from temporal_tasks.base import settings
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.log import first_time, logger, warn_once
from temporal_tasks.base.settings import ENV_NUM_FRAMES
from temporal_tasks.compat.run_context import model_frame_setting, run_context

__all__ = [
    "DEFAULT_NUM_FRAMES",
    "DEFAULT_SOURCE",
    "announce",
    "check_num_frames",
    "frames_known_now",
    "num_frames_in_force",
    "num_frames_setting",
    "request_num_frames",
    "resolve_num_frames",
]

DEFAULT_NUM_FRAMES = 32


def check_num_frames(n: int, where: str) -> int:
    """``n`` when it is a valid N (at least 3); else a ``ValueError`` naming ``where`` it comes from."""
    if n < 3:
        raise ValueError(f"{where}: a paired video needs at least 3 frames (one per clip and one black frame).")
    return n


DEFAULT_SOURCE = (
    f"default {DEFAULT_NUM_FRAMES} (no frame setting found; set {ENV_NUM_FRAMES} or the model's frame argument)"
)


def resolve_num_frames(model_setting: tuple[str, int] | None) -> tuple[int, str]:
    """The N in force and where it comes from: the env var, else the model's frame setting, else 32.

    ``model_setting`` is ``(name, value)`` from :func:`temporal_tasks.compat.run_context.model_frame_setting`
    (the model instance's attribute or ``--model_args``; a plain tuple counts as ``--model_args``). The
    source is ``"TEMPORAL_TASKS_NUM_FRAMES"``, ``"model instance attribute max_num_frames=8"``,
    ``"--model_args max_num_frames=8"`` or :data:`DEFAULT_SOURCE`. When the env var and the model differ,
    the env var wins and a warning names both values once.
    """
    env = settings.num_frames()
    if env is not None:
        if model_setting is not None and model_setting[1] != env:
            name, value = model_setting
            warn_once(
                f"{ENV_NUM_FRAMES}={env} but the model samples {name}={value} frames: paired videos are built "
                f"with N={env}, so the model does not see exactly the paper's split. Unset {ENV_NUM_FRAMES} or "
                "make them equal."
            )
        return env, ENV_NUM_FRAMES
    if model_setting is not None:
        name, value = model_setting
        describe = getattr(model_setting, "describe", None)
        where = describe() if describe is not None else f"--model_args {name}={value}"
        return check_num_frames(value, where), where
    return DEFAULT_NUM_FRAMES, DEFAULT_SOURCE


def announce(message: str) -> None:
    """Print ``message`` to stderr once per evaluation: lmms-eval sets its models' loggers to WARNING, so an
    INFO line is invisible in a plain script calling ``evaluate()``; the N in force must not be."""
    logger.debug(message)
    if not first_time(f"announce:{message}"):
        return
    print(f"temporal-tasks: {message}", file=sys.stderr, flush=True)


def num_frames_setting() -> tuple[int, str]:
    """``(N, source)``: the N built videos have in this run, and where it came from (see
    :func:`resolve_num_frames`); for the results' provenance record. A ``ValueError`` on a bad value."""
    return resolve_num_frames(model_frame_setting())


def num_frames_in_force(label: str, log: bool = False, what: str = "paired videos") -> int:
    """N for this run (:func:`num_frames_setting`); a ``DataError`` on a bad value.

    The one frame rule of every built video (Vinoground's paired videos, the shortcut variants' files).
    ``log=True`` announces the N in force and where it comes from, once per process, on stderr, as
    ``"<label>: <what> have N=... frames (<source>)"``.
    """
    try:
        n, source = num_frames_setting()
    except ValueError as exc:
        raise DataError(str(exc)) from None
    if log:
        announce(f"{label}: {what} have N={n} frames ({source})")
    return n


def frames_known_now() -> bool:
    """Whether the run's N can be known here: ``TEMPORAL_TASKS_NUM_FRAMES`` is set or an lmms-eval run is on
    the stack (the CLI, ``simple_evaluate``). False while a script builds tasks before ``evaluate(lm, ...)``:
    the model is not known yet, so builds wait for the first request (:func:`request_num_frames`)."""
    try:
        set_here = settings.num_frames() is not None
    except ValueError:  # set to a bad value: the N in force stops the run with the message where it is needed
        set_here = True
    return set_here or run_context().where != "none"


def request_num_frames(label: str, planned: int, what: str = "paired videos") -> int:
    """N for a request being served: the N in force when an evaluation is on the stack (the model that asks
    is known there, also for ``evaluate(lm, task_dict)``), else ``planned`` (the docs' N)."""
    if run_context().where in ("none", "command line"):
        return planned
    return num_frames_in_force(label, log=True, what=what)

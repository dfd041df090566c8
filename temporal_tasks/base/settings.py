"""The package's settings: every ``TEMPORAL_TASKS_*`` environment variable, read here and nowhere else.

One function per variable, typed, with its default and its error; each reads the environment when it is called,
never at import (the test runner's warm parent imports the package once and forks children with other
environments, and tests change the environment). A bad value raises :class:`SettingError`, naming the variable and
the values it takes.

The rest of the environment is read here too, for the few things that need it: the secret values kept out of the
logs (:func:`secret_values`) and the environment of a child process (:func:`child_environment`). The launcher's
own variables (``RANK``, ``WORLD_SIZE``, ...) are lmms-eval's and torch's, read in :mod:`temporal_tasks.compat`.
No module of the package changes ``os.environ``.

The data and cache folders can also be given for one block of in-process work (:func:`folders`): lmms-eval calls a
task's ``process_docs`` with the dataset alone, so a folder cannot travel down to the loader as a parameter; the
tools that load docs from another copy (the demo, ``bench``) pass it to :func:`temporal_tasks.harness.task_docs.
task_docs`, which opens this block around the loader.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from temporal_tasks.base.errors import DataError
from temporal_tasks.base.log import info_once

__all__ = [
    "DEFAULT_CACHE_DIR",
    "ENV_CACHE_DIR",
    "ENV_CAPTION_DEVICE",
    "ENV_CAPTION_MODEL",
    "ENV_DATA_DIR",
    "ENV_NUM_FRAMES",
    "ENV_PARSER",
    "ENV_REPAIR_FRAMES",
    "ENV_STRICT",
    "ENV_TIMEBLIND_TAGS",
    "ANSWER_READINGS",
    "SECRET_VARIABLES",
    "VARIABLES",
    "SettingError",
    "answer_reading",
    "cache_dir",
    "caption_device",
    "caption_model",
    "child_environment",
    "data_dir",
    "folders",
    "num_frames",
    "repair_frames",
    "secret_values",
    "strict",
    "timeblind_tags",
]

ENV_DATA_DIR = "TEMPORAL_TASKS_DATA_DIR"
ENV_CACHE_DIR = "TEMPORAL_TASKS_CACHE_DIR"
ENV_NUM_FRAMES = "TEMPORAL_TASKS_NUM_FRAMES"
ENV_PARSER = "TEMPORAL_TASKS_PARSER"
ENV_CAPTION_MODEL = "TEMPORAL_TASKS_CAPTION_MODEL"
ENV_CAPTION_DEVICE = "TEMPORAL_TASKS_CAPTION_DEVICE"
ENV_STRICT = "TEMPORAL_TASKS_STRICT"
ENV_TIMEBLIND_TAGS = "TEMPORAL_TASKS_TIMEBLIND_TAGS"
ENV_REPAIR_FRAMES = "TEMPORAL_TASKS_REPAIR_FRAMES"

DEFAULT_CACHE_DIR = "~/.cache/temporal_tasks"
ANSWER_READINGS = ("robust", "official")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")
# Access tokens whose values are blanked in every log record (temporal_tasks.base.redaction).
SECRET_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Variable:
    """One of our variables, as documented: its name, the type of its value, its default and what it sets."""

    name: str
    type: str
    default: str
    sets: str


# Every TEMPORAL_TASKS_* variable the package reads (docs/data.md lists them; a test checks both ways).
VARIABLES = (
    Variable(ENV_DATA_DIR, "folder", "unset: download from the Hugging Face Hub", "offline copies, one per benchmark"),
    Variable(ENV_CACHE_DIR, "folder", DEFAULT_CACHE_DIR, "extracted archives, built videos"),
    Variable(ENV_NUM_FRAMES, "integer >= 3", "the model's frame argument, else 32", "N of every built video"),
    Variable(ENV_PARSER, "robust | official", "robust", "the answer reading"),
    Variable(ENV_CAPTION_MODEL, "folder", "the packaged all-MiniLM-L6-v2", "temporalbench_caption_sim's scorer"),
    Variable(ENV_CAPTION_DEVICE, "torch device", "cuda when available, else cpu", "the caption scorer's device"),
    Variable(ENV_STRICT, "1 | 0 (true/false, yes/no, on/off)", "0", "stop on data the official scorers tolerate"),
    Variable(ENV_TIMEBLIND_TAGS, "file", "tags.json beside data.jsonl", "TimeBlind's tags.json"),
    Variable(
        ENV_REPAIR_FRAMES,
        "1 | 0 (true/false, yes/no, on/off)",
        "1",
        "repair lmms-eval's encode cache, which sends API and vLLM models repeated frames",
    ),
)


class SettingError(DataError, ValueError):
    """A bad value of one of our variables: a :class:`DataError` (a run stops with its message) that callers
    checking values catch as a ``ValueError``."""


def _raw(name: str) -> str:
    """The variable's value, stripped; "" when unset."""
    return os.environ.get(name, "").strip()


# The folders given for one block of in-process work (folders()); None: the environment's.
_FOLDERS: contextvars.ContextVar[tuple[Path | None, Path | None]] = contextvars.ContextVar(
    "temporal_tasks_folders", default=(None, None)
)


@contextlib.contextmanager
def folders(data_dir: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None) -> Iterator[None]:
    """Inside this block :func:`data_dir` and :func:`cache_dir` are these folders (None: the environment's).

    For in-process work on another copy than the environment names (the demo, ``bench``): the environment is
    left as it is, and the choice ends with the block (it is local to the thread or task that opened it).
    """
    data = Path(data_dir).expanduser() if data_dir is not None else None
    cache = Path(cache_dir).expanduser() if cache_dir is not None else None
    outer_data, outer_cache = _FOLDERS.get()
    token = _FOLDERS.set((data or outer_data, cache or outer_cache))
    try:
        yield
    finally:
        _FOLDERS.reset(token)


def data_dir() -> Path | None:
    """``TEMPORAL_TASKS_DATA_DIR``: the folder holding one offline copy per benchmark; None (unset or empty): the
    benchmarks are downloaded from the Hugging Face Hub. Inside :func:`folders`, the folder given there."""
    given = _FOLDERS.get()[0]
    if given is not None:
        return given
    raw = _raw(ENV_DATA_DIR)
    return Path(raw).expanduser() if raw else None


def cache_dir(default: str | os.PathLike = DEFAULT_CACHE_DIR) -> Path:
    """``TEMPORAL_TASKS_CACHE_DIR``: our cache root (extracted archives, built videos); unset or empty: ``default``
    (``~/.cache/temporal_tasks``). Inside :func:`folders`, the folder given there. Not created here."""
    given = _FOLDERS.get()[1]
    if given is not None:
        return given
    return Path(_raw(ENV_CACHE_DIR) or default).expanduser()


def num_frames() -> int | None:
    """``TEMPORAL_TASKS_NUM_FRAMES``: N of every built video, an integer of at least 3; None when unset (N then
    follows the model, see :mod:`temporal_tasks.video.frame_count`)."""
    raw = _raw(ENV_NUM_FRAMES)
    if not raw:
        return None
    try:
        n = int(raw)
    except ValueError:
        raise SettingError(
            f"{ENV_NUM_FRAMES}={raw!r} is not an integer; set it to the model's frame count (>= 3)."
        ) from None
    if n < 3:
        raise SettingError(
            f"{ENV_NUM_FRAMES}={n}: a paired video needs at least 3 frames (one per clip and one black frame)."
        )
    return n


def answer_reading() -> str:
    """``TEMPORAL_TASKS_PARSER``: the answer reading, ``robust`` (default) or ``official`` (any case); logged once."""
    raw = _raw(ENV_PARSER).lower() or "robust"
    if raw not in ANSWER_READINGS:
        raise SettingError(
            f"{ENV_PARSER}={raw!r} is not an answer reading; set it to 'robust' (default) or 'official'."
        )
    info_once(f"temporal-tasks: answer reading = {raw} (set {ENV_PARSER}=robust|official)")
    return raw


def caption_model() -> Path | None:
    """``TEMPORAL_TASKS_CAPTION_MODEL``: a local sentence-transformers folder for ``temporalbench_caption_sim``;
    None: the packaged model (or the Hugging Face cache's). Whether it holds a model is checked where it loads."""
    raw = _raw(ENV_CAPTION_MODEL)
    return Path(raw).expanduser() if raw else None


def caption_device() -> str | None:
    """``TEMPORAL_TASKS_CAPTION_DEVICE``: the torch device of the caption scorer (``cpu``, ``cuda:1``, ...);
    None: CUDA when available, else CPU. torch checks the name when the model loads."""
    return _raw(ENV_CAPTION_DEVICE) or None


def strict() -> bool:
    """``TEMPORAL_TASKS_STRICT``: ``1`` (or ``true``, ``yes``, ``on``) stops on data the official scorers tolerate;
    ``0`` (or ``false``, ``no``, ``off``, unset) warns and scores as they do."""
    raw = _raw(ENV_STRICT).lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise SettingError(f"{ENV_STRICT}={raw!r}: set it to 1 (stop on such data) or 0 (warn; the default).")


def repair_frames() -> bool:
    """``TEMPORAL_TASKS_REPAIR_FRAMES``: ``1`` (default; or ``true``, ``yes``, ``on``, unset) repairs lmms-eval's
    frame-repeating encode cache where a probe finds it (:mod:`temporal_tasks.compat.encode_cache`); ``0`` (or
    ``false``, ``no``, ``off``) leaves lmms-eval as it is, to reproduce an unrepaired run."""
    raw = _raw(ENV_REPAIR_FRAMES).lower()
    if raw in ("", *_TRUE):
        return True
    if raw in _FALSE:
        return False
    raise SettingError(
        f"{ENV_REPAIR_FRAMES}={raw!r}: set it to 1 (repair; the default) or 0 (leave lmms-eval as it is)."
    )


def timeblind_tags() -> Path | None:
    """``TEMPORAL_TASKS_TIMEBLIND_TAGS``: TimeBlind's ``tags.json`` when it is not beside ``data.jsonl``; None:
    unset. Whether it is a file is checked where it is read."""
    raw = _raw(ENV_TIMEBLIND_TAGS)
    return Path(raw).expanduser() if raw else None


def secret_values() -> list[str]:
    """The values of the access-token variables that are set (:data:`SECRET_VARIABLES`), for log redaction."""
    return [value for value in (os.environ.get(name) for name in SECRET_VARIABLES) if value]


def child_environment(changes: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment for a child process (``subprocess.run(..., env=...)``): this process's, with ``changes``
    (a value of None removes the variable). This process's environment is not changed."""
    env = dict(os.environ)
    for name, value in (changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env

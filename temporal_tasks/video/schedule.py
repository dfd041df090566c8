"""Derived visuals built ahead of the model's requests: one scheduler for every file a task's docs need.

A task only says which file a doc needs at N frames (``file_for(doc, n)``: a
:class:`~temporal_tasks.video.cache.FileBuild`, or None for a doc that needs none): Vinoground's paired videos,
every shortcut variant's files. :class:`BuildAhead` does the rest, the same way for all of them:

* in ``process_docs``, :meth:`BuildAhead.decide` says when to build
  (:func:`~temporal_tasks.video.watching.when_to_build`: ahead, only for a model that reads visuals; or at the first
  request, when the model and so N are not known yet); inside :func:`builds_paused` (``docs_only()``) nothing is
  started or parked;
* :meth:`BuildAhead.plan` then starts this rank's share (lmms-eval's sharding: rank, world size, ``--limit``,
  ``--offset``) in background threads (:class:`~temporal_tasks.video.builds.BackgroundBuilds`, in the model's
  request order), or parks the docs in the run state until the first request;
* in ``doc_to_visual``, :meth:`BuildAhead.visual` picks parked docs up (their builds start with the request's N)
  and returns the doc's file, waiting only for that one; :meth:`BuildAhead.observe` notes a request that needs no
  file (where the model is in its order). A failed build stops the run at the next request, naming the file.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from temporal_tasks.base.log import logger
from temporal_tasks.base.run_state import STATE
from temporal_tasks.compat.run_context import rank_share
from temporal_tasks.video.builds import BackgroundBuilds, build_workers
from temporal_tasks.video.cache import FileBuild
from temporal_tasks.video.watching import AHEAD, AT_FIRST_REQUEST, NOT_AHEAD, when_to_build

__all__ = ["BuildAhead", "BuildProgress", "announce_frames", "builds_paused"]

# Inside builds_paused() (docs_only(): rescore, the shortcut variants reading their main task's docs) no scheduler
# starts or parks a build.
_PAUSED: contextvars.ContextVar[bool] = contextvars.ContextVar("temporal_tasks_builds_paused", default=False)


@contextlib.contextmanager
def builds_paused() -> Iterator[None]:
    """Inside this block :meth:`BuildAhead.decide` returns None: no build is started or parked."""
    token = _PAUSED.set(True)
    try:
        yield
    finally:
        _PAUSED.reset(token)


def announce_frames(when: str | None) -> bool:
    """Whether ``process_docs`` announces N now: when files are built ahead, or not ahead at all; not when the
    builds wait for the first request (the model, hence N, is not known yet), nor inside :func:`builds_paused`."""
    return when in (AHEAD, NOT_AHEAD)


class BuildProgress:
    """A progress bar over one rank's questions with a file, shown once questions wait for builds and many remain."""

    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.expected = 0
        self.done = 0
        self.bar: tqdm | None = None
        self.lock = threading.Lock()

    def expect(self, total: int) -> None:
        """``total`` questions with a file for this rank (its share, already divided between ranks)."""
        with self.lock:
            self.expected, self.done = total, 0
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    def tick(self, built: bool) -> None:
        """One question served; ``built``: it waited for its file (the bar appears then, if 8 or more remain)."""
        with self.lock:
            self.done += 1
            if built and self.bar is None and self.expected - self.done >= 8:
                self.bar = tqdm(total=self.expected, initial=self.done - 1, desc=self.desc)
            if self.bar is not None:
                self.bar.update(1)
                if self.done >= self.expected:
                    self.bar.close()
                    self.bar = None


@dataclass(frozen=True)
class BuildAhead:
    """The derived visuals of one kind of question, built ahead of the model's requests.

    ``file_for(doc, n)`` is the file ``doc`` needs at N = ``n`` frames (None: the doc needs none). Requests are keyed
    by ``(scope, question_id)``: the scope is the task (or variant) whose docs they are. ``owner`` names the
    evaluation's background builder (one per owner, shared by its schedules) and the parked docs; ``kind`` names
    one of its files in the builder's log lines, ``what`` one of this schedule's (default ``kind``); ``label``
    names the schedule in its log lines (default: the scope). ``progress``: the description of a progress bar over
    the rank's questions with a file ("" for none).
    """

    owner: str
    kind: str
    file_for: Callable[[dict, int], FileBuild | None]
    what: str = ""
    label: str = ""
    progress: str = ""

    def builder(self) -> BackgroundBuilds:
        """This evaluation's background builder of the owner's files."""
        return STATE.builder(self.owner, lambda: BackgroundBuilds(self.owner, kind=self.kind))

    def _progress(self) -> BuildProgress:
        return STATE.builder(f"{self.owner}:progress", lambda: BuildProgress(self.progress))

    def decide(self, scope: str) -> str | None:
        """When this run builds the scope's files: ``AHEAD``, ``AT_FIRST_REQUEST`` or ``NOT_AHEAD``
        (:func:`~temporal_tasks.video.watching.when_to_build`); None inside :func:`builds_paused`."""
        if _PAUSED.get():
            return None
        return when_to_build(self.label or scope, self.what or self.kind)

    def plan(self, scope: str, docs: list[dict], n: int, when: str | None) -> None:
        """``process_docs``: start this rank's builds now (``AHEAD``), or park ``docs`` until the first request
        (``AT_FIRST_REQUEST``: that request's N is used); otherwise nothing."""
        if when == AHEAD:
            self._start_share(scope, docs, n)
        elif when == AT_FIRST_REQUEST and docs:  # tasks built before `evaluate(lm, task_dict)`: N known at a request
            STATE.deferred[(self.owner, scope)] = docs

    def _start_share(self, scope: str, docs: list[dict], n: int) -> int:
        """Build this rank's share of ``docs``' files (N = ``n``) in the background, in request order.

        The share follows lmms-eval's sharding (:func:`temporal_tasks.compat.run_context.rank_share`); none with
        ``--limit 0``. Returns the number of distinct files planned.
        """
        share = rank_share(docs)
        requests = [((scope, d["question_id"]), str(d.get("prompt", "")), self.file_for(d, n)) for d in share]
        needed = sum(spec is not None for _key, _prompt, spec in requests)
        if self.progress:
            self._progress().expect(needed)
        if not needed:
            return 0
        builds = self.builder()
        planned = builds.plan_builds(requests)
        logger.info(
            f"{self.label or scope}: {planned} {self.what or self.kind}s of this rank are checked and built in the "
            f"background ({builds.workers or build_workers()} threads); a question waits only for its own file"
        )
        return planned

    def visual(self, scope: str, doc: dict, n: int) -> Path:
        """The file of ``doc`` (N = ``n``): built already in the background, else waited for, else built now.

        The first request of a scope whose docs were parked starts their builds with this N."""
        deferred = STATE.deferred.pop((self.owner, scope), None)
        if deferred is not None:
            self._start_share(scope, deferred, n)
        spec = self.file_for(doc, n)
        if spec is None:
            raise ValueError(f"{self.label or scope}: question {doc.get('question_id')!r} needs no file")
        path, waited = self.builder().get_build((scope, doc["question_id"]), spec)
        if self.progress:
            self._progress().tick(waited)
        return path

    def observe(self, scope: str, doc: dict) -> None:
        """Note a request for ``doc``, which needs no file: where the model is in its order."""
        self.builder().observe((scope, doc["question_id"]))

"""Background builds: a rank's cached files built ahead, in background threads, in the order the model asks.

:class:`BackgroundBuilds` serves Vinoground's paired videos and the shortcut variants' files alike (through the
scheduler, :mod:`temporal_tasks.video.schedule`): each file is a :class:`~temporal_tasks.video.cache.FileBuild`,
built at most once across processes (:func:`~temporal_tasks.video.cache.build_once`).
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Hashable, Sequence
from pathlib import Path

from temporal_tasks.base.errors import DataError, exit_run
from temporal_tasks.base.log import logger
from temporal_tasks.compat.run_context import launcher
from temporal_tasks.video.cache import FileBuild, build_once

__all__ = ["BackgroundBuilds", "build_workers"]


def build_workers() -> int:
    """Background build threads for this process: the cores it may use / the ranks on this node, at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // launcher().local_world_size)


class _Job:
    """One file to build (a :class:`FileBuild`); ``state`` moves pending -> running -> done/failed."""

    __slots__ = ("spec", "state", "event", "path", "error")

    def __init__(self, spec: FileBuild) -> None:
        self.spec = spec
        self.state = "pending"  # also "running", "busy" (another process builds it), "done", "failed"
        self.event = threading.Event()  # set whenever the job leaves "running"
        self.path: Path | None = None
        self.error: str | None = None


# How lmms-eval may order one rank's requests: as built (doc order; replay, dummy, API models), or
# sorted by its Collator, by prompt length, longest first (the simple Qwen/LLaVA models sort by
# token count, ties by prompt), or by prompt text (chat models). Characters stand in for tokens.
_ORDERINGS = (None, lambda text: (-len(text), text), lambda text: text)
_WINDOW = 3  # a step of 1..3 positions between two requests counts as "following" an ordering


class BackgroundBuilds:
    """Cached files (paired videos, shortcut variants' files) built ahead in background threads, in the
    order the model will ask for them.

    :meth:`plan_builds` registers one rank's requests (each a key, a prompt and the :class:`FileBuild` it
    needs, or ``None``). Up to ``workers`` daemon threads (:func:`build_workers`) then build the missing files;
    ``kind`` names one file in the log. :meth:`get_build` returns one request's file: at once
    when built, after waiting for it when it is being built, and built right there (ahead of the queue)
    when nobody has started it. Every request it sees (:meth:`observe` for those without a file) tells
    which candidate ordering the model follows (doc order, prompt length, prompt text) and where it is;
    the threads continue from there. Files are built by :func:`~temporal_tasks.video.cache.build_once`
    (atomic, one builder across processes). A failed build stops the run at the next request, naming the
    file (its clips) from :attr:`FileBuild.what`; :meth:`shutdown` (also at exit) lets running builds finish
    and drops the rest.
    """

    def __init__(self, label: str, workers: int | None = None, kind: str = "paired video") -> None:
        self.label = label
        self.workers = workers
        self.kind = kind
        self._lock = threading.Lock()
        self._jobs: dict[Hashable, _Job] = {}
        self._entries: list[tuple[Hashable, str, _Job | None]] = []  # (request key, prompt, job)
        self._orders: list[list[Hashable]] = []
        self._positions: list[dict[Hashable, int]] = []
        self._by_key: dict[Hashable, _Job | None] = {}
        self._planned = 0
        self._seen: list[Hashable] = []
        self._active, self._cursor = 0, -1
        self._threads: list[threading.Thread] = []  # every thread started and maybe alive (joined at exit)
        self._workers: list[threading.Thread] = []  # those still taking jobs
        self._stopping = False
        self._failure: str | None = None
        self._counts: dict[str, int] = {"built": 0, "cached": 0}
        self._waits = [0, 0.0]  # requests that waited for their video, seconds waited in all
        self._done_keys: set[Hashable] = set()
        self._started_at = 0.0
        self._exit_hook = False

    @property
    def planned(self) -> int:
        """How many distinct files the plans so far need (built in the background, in request order)."""
        return self._planned

    # -- planning

    def _job(self, spec: FileBuild) -> _Job:
        job = self._jobs.get(spec.key)
        if job is None:
            job = self._jobs[spec.key] = _Job(spec)
        return job

    def plan_builds(self, requests: Sequence[tuple[Hashable, str, FileBuild | None]], *, start: bool = True) -> int:
        """Add ``(key, prompt, FileBuild or None)`` requests in lmms-eval's order; start building.

        Returns how many distinct files this plan needs.
        """
        with self._lock:
            jobs = set()
            for key, prompt, spec in requests:
                if key in self._by_key:  # the same task loaded again in this process
                    continue
                job = None if spec is None else self._job(spec)
                if job is not None:
                    jobs.add(id(job))
                self._entries.append((key, prompt, job))
            self._reorder()
            self._stopping = False
        if start:
            self.start()
        return len(jobs)

    def _reorder(self) -> None:
        self._orders = []
        for order_key in _ORDERINGS:
            if order_key is None:
                keys = [key for key, _p, _j in self._entries]
            else:
                keys = [key for key, _p, _j in sorted(self._entries, key=lambda e: order_key(e[1]))]
            self._orders.append(keys)
        self._positions = [{key: i for i, key in enumerate(order)} for order in self._orders]
        self._by_key = {key: job for key, _p, job in self._entries}
        self._planned = sum(job is not None for job in self._by_key.values())
        self._seen, self._active, self._cursor = [], 0, -1

    def _observe(self, key: Hashable) -> None:
        if key not in self._by_key:
            return
        self._seen = [*self._seen[-15:], key]
        best, best_score = self._active, -1
        for c, pos in enumerate(self._positions):
            steps = zip(self._seen, self._seen[1:], strict=False)
            score = sum(1 for a, b in steps if 0 < pos[b] - pos[a] <= _WINDOW)
            if score > best_score or (score == best_score and c == self._active):
                best, best_score = c, score
        self._active = best
        self._cursor = self._positions[best][key]

    def observe(self, key: Hashable) -> None:
        """Note that the model asked for request ``key`` (one that needs no file)."""
        with self._lock:
            self._observe(key)
        self._check_failure()

    def _next_job(self) -> _Job | None:
        order = self._orders[self._active] if self._orders else []
        n = len(order)
        for step in range(1, n + 1):  # from just after the model's position, then wrapping around
            job = self._by_key[order[(self._cursor + step) % n]]
            if job is not None and job.state == "pending":
                return job
        return None

    # -- threads

    def start(self) -> None:
        """Start the worker threads (idempotent; they end when nothing is left to build)."""
        with self._lock:
            if self._stopping or self._failure is not None or self._next_job() is None:
                return
            self._threads = [t for t in self._threads if t.is_alive()]
            wanted = (self.workers or build_workers()) - len(self._workers)
            if not self._workers:
                self._started_at, self._counts = time.perf_counter(), {"built": 0, "cached": 0}
            for i in range(max(0, wanted)):
                thread = threading.Thread(target=self._work, name=f"{self.label}-build-{i}", daemon=True)
                self._threads.append(thread)
                self._workers.append(thread)
                thread.start()
            if not self._exit_hook:
                atexit.register(self.shutdown)
                self._exit_hook = True

    def _work(self) -> None:
        try:  # Linux: a lower priority for this thread only, so the model's own work (main thread) comes first
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
        except (AttributeError, OSError):
            pass
        while True:
            with self._lock:
                job = None if self._stopping or self._failure is not None else self._next_job()
                if job is None:
                    self._workers.remove(threading.current_thread())  # stays in _threads until it returns
                    last = not self._workers and not self._stopping and self._failure is None
                    break
                job.state = "running"
                job.event.clear()
            self._run(job, wait=False)
        if last and sum(self._counts.values()) > 0:
            logger.info(
                f"{self.label}: background build finished: {self._counts['built']} {self.kind}s built, "
                f"{self._counts['cached']} already cached ({time.perf_counter() - self._started_at:.1f} s)"
            )

    def _run(self, job: _Job, *, wait: bool) -> None:
        try:
            target = job.spec.target()
            outcome = build_once(target, job.spec.build, wait=wait)
        except Exception as exc:  # noqa: BLE001 - any failure stops the run, named, at the next request
            with self._lock:
                job.state = "failed"
                job.error = (
                    f"{self.label}: could not build {job.spec.what}: {type(exc).__name__}: {exc}. {job.spec.hint}"
                )
                self._failure = self._failure or job.error
        except BaseException:  # interrupted: nobody owns it any more
            with self._lock:
                job.state = "pending"
            raise
        else:
            with self._lock:
                if outcome == "busy":
                    job.state = "busy"  # another process builds it; get() waits for the file
                else:
                    job.state, job.path = "done", target
                    self._counts[outcome] += 1
        finally:
            job.event.set()

    # -- requests

    def _check_failure(self) -> None:
        if self._failure is not None:
            exit_run(DataError(self._failure))

    def get_build(self, key: Hashable, spec: FileBuild) -> tuple[Path, bool]:
        """Request ``key``'s file (``spec``); returns ``(path, waited)`` (waited: it was not ready yet)."""
        with self._lock:
            self._observe(key)
            job = self._by_key.get(key)
            if job is None or job.spec.key != spec.key:
                job = self._job(spec)  # not planned: built on demand
        self._check_failure()
        waited, start = False, time.perf_counter()
        while True:
            with self._lock:
                state = job.state
                if state in ("pending", "busy"):
                    job.state = "running"  # ours now: build it here, ahead of the queue
                    job.event.clear()
            if state == "done":
                assert job.path is not None  # "done" is set together with the path (_run)
                self._served(key, time.perf_counter() - start if waited else None)
                return job.path, waited
            if state == "failed":
                exit_run(DataError(job.error or f"{self.label}: {job.spec.what} failed to build"))
            waited = True
            if state in ("pending", "busy"):
                self._run(job, wait=True)
            else:
                job.event.wait()

    def _served(self, key: Hashable, waited: float | None) -> None:
        with self._lock:
            if waited is not None:
                self._waits[0] += 1
                self._waits[1] += waited
            if key not in self._by_key or key in self._done_keys:
                return
            self._done_keys.add(key)
            if len(self._done_keys) < self._planned:
                return
            waits = self._waits

        logger.info(
            f"{self.label}: every {self.kind.replace(' ', '-')} question of this rank served; {waits[0]} waited for "
            f"its file ({waits[1]:.1f} s in all)"
        )

    def shutdown(self, timeout: float = 60.0) -> None:
        """Stop after the builds under way (no torn files, no lock left), drop the rest; join the threads."""
        with self._lock:
            self._stopping = True
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)

    def alive(self) -> int:
        """Worker threads still running."""
        with self._lock:
            return sum(t.is_alive() for t in self._threads)

"""The benchmark registry: every benchmark the package serves, as a :class:`~.spec.Benchmark` spec.

Ours live in ``temporal_tasks/benchmarks/<name>/`` (the spec in its ``__init__``, the rest beside it) and
are listed once, in :data:`BUILTIN`. Another package adds a benchmark without editing ours by declaring an
entry point in the group ``temporal_tasks.benchmarks`` whose object is a ``Benchmark``; its ``tasks_dir``
is then handed to lmms-eval like ours (:mod:`temporal_tasks._hook`), and every command sees it.
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points

from temporal_tasks.benchmarks.spec import Benchmark

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "Benchmark", "get", "names", "of_task", "registered"]

# The one list of our own benchmarks, in display order.
BUILTIN = ("timeblind", "vinoground", "temporalbench", "velociti")
ENTRY_POINT_GROUP = "temporal_tasks.benchmarks"


class UnknownBenchmark(ValueError):
    """A benchmark name that no spec declares."""


@functools.cache
def registered() -> dict[str, Benchmark]:
    """Every registered benchmark by name: ours first (in :data:`BUILTIN` order), then entry points, sorted."""
    found = {name: importlib.import_module(f"{__name__}.{name}").SPEC for name in BUILTIN}
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        spec = ep.load()
        if not isinstance(spec, Benchmark):
            raise TypeError(
                f"entry point {ep.name} = {ep.value} (group {ENTRY_POINT_GROUP}) is a {type(spec).__name__}, "
                "not a temporal_tasks.benchmarks.Benchmark: point it at the benchmark's spec object."
            )
        if spec.name in found:
            raise ValueError(
                f"entry point {ep.name} = {ep.value} declares the benchmark {spec.name!r} again: rename it."
            )
        found[spec.name] = spec
    return found


def names() -> list[str]:
    """The registered benchmark names, in order."""
    return list(registered())


def get(name: str) -> Benchmark:
    """The spec of ``name``; an unknown name is an error listing the known ones."""
    specs = registered()
    if name not in specs:
        raise UnknownBenchmark(f"unknown benchmark {name!r}; known: {', '.join(specs)}")
    return specs[name]


def of_task(task: str) -> Benchmark | None:
    """The benchmark a task or group name belongs to (the longest matching name wins), or None."""
    owners = [spec for spec in registered().values() if spec.owns_task(task)]
    return max(owners, key=lambda s: len(s.name)) if owners else None

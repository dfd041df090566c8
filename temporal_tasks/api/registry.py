"""The benchmark registry: every benchmark the package serves, as a :class:`~.spec.Benchmark` spec.

Every benchmark, ours included, is registered the same way: an entry point in the group
``temporal_tasks.benchmarks`` whose object is its spec (ours: ``pyproject.toml``). Shared code learns about a
benchmark only here, through its spec and the hooks it declares; no module of ours imports a benchmark's. When a
benchmark registers, each hook it declares must resolve and fit its contract
(:data:`temporal_tasks.api.contracts.HOOKS`): a typo stops at start-up with the hook's name.
"""

from __future__ import annotations

import functools
from importlib.metadata import entry_points

from temporal_tasks.api.contracts import check_hooks
from temporal_tasks.api.spec import Benchmark

__all__ = ["DISTRIBUTION", "ENTRY_POINT_GROUP", "Benchmark", "get", "names", "of_task", "registered"]

ENTRY_POINT_GROUP = "temporal_tasks.benchmarks"
DISTRIBUTION = "temporal-tasks"  # ours come first, in the order of the installed entry points (by name)


class UnknownBenchmark(ValueError):
    """A benchmark name that no spec declares."""


@functools.cache
def registered() -> dict[str, Benchmark]:
    """Every registered benchmark by name: ours first, in the order of the installed entry points (the build
    backend writes them sorted by name, whatever order ``pyproject.toml`` lists them in), then the others, sorted
    by name."""
    points = list(entry_points(group=ENTRY_POINT_GROUP))
    ours = [ep for ep in points if ep.dist is not None and ep.dist.name == DISTRIBUTION]
    if not ours:
        raise RuntimeError(
            "temporal-tasks registers its benchmarks through its package's entry points, and none is installed: "
            "install the package (`pip install .` or `pip install -e .`)."
        )
    found: dict[str, Benchmark] = {}
    for ep in [*ours, *sorted((ep for ep in points if ep not in ours), key=lambda e: e.name)]:
        spec = ep.load()
        if not isinstance(spec, Benchmark):
            raise TypeError(
                f"entry point {ep.name} = {ep.value} (group {ENTRY_POINT_GROUP}) is a {type(spec).__name__}, "
                "not a temporal_tasks.api.Benchmark: point it at the benchmark's spec object."
            )
        if spec.name in found:
            raise ValueError(
                f"entry point {ep.name} = {ep.value} declares the benchmark {spec.name!r} again: rename it."
            )
        check_hooks(spec)
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

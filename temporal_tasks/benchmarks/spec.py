"""What a benchmark declares once, for the rest of the package: :class:`Benchmark`.

Shared code (data, check-data, report, summary, export, shortcuts, fixtures, the lm-eval controls,
rescore) never names a benchmark: it iterates over the registered specs
(:func:`temporal_tasks.benchmarks.registered`). A spec is plain data plus *hooks*: ``"module:function"``
references resolved on first use, so reading a spec imports nothing heavy (the import hook reads them
at every lmms-eval start). A hook reference starting with ``.`` is relative to the spec's ``package``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporal_tasks import tasks_dir


@dataclass(frozen=True)
class PerCategory:
    """The ``<family>_<category>`` keys of a metric list: one entry per family and category."""

    families: tuple[str, ...]
    categories: tuple[str, ...]
    # The aggregation of each key, formatted with ``family`` and ``category`` (e.g. "{family}_category").
    aggregation: str = "{family}_category"
    comment: str = ""
    # "family": every category of one family, then the next family; "category": every family per category.
    by: str = "family"

    def keys(self, category: str | None = None) -> list[str]:
        """Its keys ``<family>_<category>`` in metric-list order; with ``category``, only that category's."""
        cats = [c for c in self.categories if category is None or c == category]
        if self.by == "family":
            return [f"{f}_{c}" for f in self.families for c in cats]
        return [f"{f}_{c}" for c in cats for f in self.families]


@dataclass(frozen=True)
class MetricList:
    """The ``metric_list`` of one task YAML, generated from this (``python -m temporal_tasks.metric_lists``).

    Entries in order: ``values``, ``diagnostics``, the CIs (``<m>_ci_low``, ``<m>_ci_high`` of each of
    ``ci``), the ``per_category`` blocks, then the ``--repeats`` stability keys of every group metric
    (``stability``). An entry's aggregation is the function of the same name (``prefix`` + key) in the
    benchmark's generated ``aggregations`` module; ``parse_disagreement`` and ``truncated_rate`` are the
    shared ones of :mod:`temporal_tasks.diagnostics`.
    """

    file: str  # relative to the benchmark's task folder
    values: tuple[str, ...]
    ci: tuple[str, ...] = ()
    diagnostics: tuple[str, ...] = ("invalid_rate", "parse_disagreement", "truncated_rate")
    per_category: tuple[PerCategory, ...] = ()
    prefix: str = ""  # prepended to the names of the benchmark's own aggregations in this list
    lower_is_better: tuple[str, ...] = ()  # families whose keys are better when lower (diagnostics always are)
    comment: str = ""  # a comment line above the entries
    stability: bool = True  # False for log-likelihood tasks and metrics without groups

    def keys(self) -> list[str]:
        """The keys every question of the task feeds, in metric-list order: values, diagnostics, CIs.

        A task's ``process_results`` returns these and the :attr:`per_category` keys of the question's
        categories (:meth:`PerCategory.keys`); neither is written anywhere else.
        """
        cis = [f"{m}{end}" for m in self.ci for end in ("_ci_low", "_ci_high")]
        return [*self.values, *self.diagnostics, *cis]


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its data, tasks, metric layout, reference numbers and the modules that serve it."""

    name: str  # folder under TEMPORAL_TASKS_DATA_DIR, prefix of its task names, `--benchmark` value
    title: str  # display name ("TimeBlind")
    package: str  # the Python package holding its modules (loader, scoring, fixture, check, export)
    hf_repo: str = ""  # Hugging Face dataset repo of the official release ("" if none)
    paper: str = ""  # short citation: authors, title, venue, year
    # The YAML folder of its lmms-eval tasks. None: the folder named ``name`` in our shipped tasks directory.
    tasks_dir: str | None = None

    # Report and summary layout.
    # Headline metric keys in display order; left out, derived from the metric lists (see __post_init__).
    headline: tuple[str, ...] = ()
    families: tuple[str, ...] = ()  # category metrics are ``<family>_<category>``, in display order
    categories: tuple[str, ...] = ()  # preferred category order; unknown categories follow, sorted
    tasks: tuple[str, ...] = ()  # preferred task order in the report; unknown tasks follow, sorted
    primary: tuple[str, ...] = ()  # the headline number of `summary`: the first of these a task reports
    metric_labels: Mapping[str, str] = field(default_factory=dict)  # short chart labels of its metric keys

    # Shortcut analyses (temporal_tasks.shortcuts) and the lm-eval language-only control.
    shortcut_main: str | None = None  # the main task the variants copy
    blind_task: str | None = None  # its no-visual variant, when not ``<shortcut_main>_blind``

    # check-data: published sizes, keyed by (part key, what).
    published: Mapping[tuple[str, str], int] = field(default_factory=dict)

    # Hooks, "module:function" (``.module`` is relative to ``package``); None: the benchmark has none.
    check: str | None = None  # (BenchmarkData, videos to decode per part) -> list[check.Part]
    export: str | None = None  # (samples files by task, out dir) -> files written, in the official scorers' format
    view: str | None = None  # (a failed group's re-read payloads) -> its failure shape in `temporal-tasks view`
    # (importer.SourceFile, importer.ImportContext) -> importer.FileImport: one official answer file, mapped to our ids
    importer: str | None = None
    fixture: str | None = None  # (root) -> the small synthetic copy's folder ``root/<name>``
    fixture_full: str | None = None  # (root) -> the synthetic copy at the published sizes
    demo_tasks: tuple[str, ...] = ()  # the tasks `temporal-tasks demo` runs on the small fixture
    prebuild: str | None = None  # (num_frames) -> files built: `temporal-tasks prebuild` (cached derived videos)
    references: str | None = None  # a JSON file in ``package``: published numbers shown by `report`
    parsers: str | None = None  # the module registering its answer parsers (temporal_tasks.parsing.register_parser)

    # The metric lists of its task YAMLs, generated with the named aggregation functions they reference.
    metric_lists: tuple[MetricList, ...] = ()
    # The module (in ``package``) defining those functions: plain ``def``s or entries of its AGGREGATIONS dict.
    scoring_module: str = ".tasks"

    def __post_init__(self) -> None:
        # The headline keys are declared by the metric lists: the families first (their display order), then
        # the lists' other values, then their diagnostics, each once.
        if not self.headline and self.metric_lists:
            values = [k for ml in self.metric_lists for k in ml.values]
            diagnostics = [k for ml in self.metric_lists for k in ml.diagnostics]
            keys = dict.fromkeys([*self.families, *values, *diagnostics])
            object.__setattr__(self, "headline", tuple(keys))
        listed = {k for ml in self.metric_lists for k in ml.values}
        unlisted = [f for f in self.families if self.metric_lists and f not in listed]
        if unlisted:
            raise ValueError(f"{self.name}: families {unlisted} are not values of any of its metric_lists.")

    @property
    def blind(self) -> str | None:
        """The no-visual variant of the main task (None without shortcut analyses)."""
        if self.shortcut_main is None:
            return None
        return self.blind_task or f"{self.shortcut_main}_blind"

    @property
    def shortcut_tasks(self) -> tuple[str, ...]:
        """(main, blind, single frame, shuffled) task names, or () without shortcut analyses."""
        if self.shortcut_main is None:
            return ()
        main = self.shortcut_main
        return (main, self.blind or "", f"{main}_single_frame", f"{main}_shuffled")

    def owns_task(self, task: str) -> bool:
        """Whether ``task`` (a task or group name) belongs to this benchmark (its name is the prefix)."""
        return task == self.name or task.startswith(self.name + "_")

    def task_folder(self) -> Path:
        """The folder of its task YAMLs."""
        if self.tasks_dir is not None:
            return Path(self.tasks_dir)

        return Path(tasks_dir()) / self.name

    def resolve(self, ref: str) -> Any:
        """The object behind a hook reference ``"module:attr"`` (``.module``: inside ``package``)."""
        module, _, attr = ref.partition(":")
        if module.startswith("."):
            module = self.package + module
        obj = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        return obj

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The hook ``name`` (e.g. ``"export"``) as a callable, or None when the benchmark declares none."""
        ref = getattr(self, name)
        return None if ref is None else self.resolve(ref)

    def resource(self, filename: str) -> Path:
        """A data file shipped inside ``package`` (e.g. its reference numbers)."""
        module = importlib.import_module(self.package)
        return Path(module.__file__).resolve().parent / filename

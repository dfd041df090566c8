"""What a benchmark declares once, for the rest of the package: :class:`Benchmark`.

Shared code (data, check-data, report, summary, export, shortcuts, fixtures, the lm-eval controls,
rescore) never names a benchmark: it iterates over the registered specs
(:func:`temporal_tasks.api.registry.registered`). A spec is plain data plus *hooks*: ``"module:function"``
references resolved on first use, so reading a spec imports nothing heavy (the import hook reads them
at every lmms-eval start). A hook reference starting with ``.`` is relative to the spec's ``package``.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from temporal_tasks import tasks_dir


@functools.lru_cache(maxsize=4096)  # a pure function of the few category names a benchmark has
def slug(name: str) -> str:
    """A category name as metric keys spell it: lowercase, each run of non-alphanumerics one ``_``."""
    out = []
    prev_us = False
    for ch in name.strip().lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
            prev_us = False
        elif not prev_us:
            out.append("_")
            prev_us = True
    return "".join(out).strip("_")


# What an unreadable answer does: "wrong" (it is a wrong answer), "drop" (its unit leaves the denominator),
# "drop_group" (every unit of its group leaves: an official closed-model rule).
InvalidPolicy = Literal["wrong", "drop", "drop_group"]
MissingPolicy = Literal["as_empty", "not_counted", "void_group"]
MISSING_POLICIES: tuple[str, ...] = ("as_empty", "not_counted", "void_group")


@dataclass(frozen=True)
class Strata:
    """A metric whose value is the unweighted mean over strata (a payload field) of each stratum's pooled percentage
    (VELOCITI's mean over tests); its CI resamples groups within strata."""

    field: str
    order: tuple[str, ...]  # the paper's column order: the mean is summed in it, so the last bit is the paper's
    exclude: tuple[str, ...] = ()  # strata left out of the mean (a warning when fewer than the others have a value)


@dataclass(frozen=True)
class Metric:
    """A group metric: how a task's payloads reduce to per-group ``[right units, units]`` counts.

    ``units``: ``"each"`` (every question is a unit), ``"all"`` (the whole group) or tuples of the benchmark's
    declared roles. A unit is right when all its members are correct or, with ``score_gt``, when its first role's
    payload field ``score_gt`` is above its second's (VELOCITI's ClassicVLE). ``invalid`` is the policy for
    unreadable answers; ``invalid_official`` the one in the ``official`` reading (None: the same).

    ``official_read_first``: role tuples an official scorer reads, in this order, before this metric's units, in the
    same ``try: ... except: continue`` (Vinoground's ``get_score_all.py``), where reading an empty answer raises
    (``response[0]``) and skips the rest of the group. In the ``official`` reading a unit is then right only when
    no empty answer was reached in them: each tuple's roles are read in order while the ones before are right (its
    ``and`` short-circuits). The group stays in the denominator, as there.

    ``official_missing``: what the official scorer does with a question its answer file has no line for (a replayed
    question without a response: payload ``answer_missing``), in the ``official`` reading. ``"as_empty"``: the
    same as an empty answer (Vinoground, VELOCITI). ``"not_counted"``: the question is no unit, and a group is
    counted when some member has a line (TemporalBench's ``get_qa_acc.py``). ``"void_group"``: a group with some
    member missing has every unit wrong, and one with no member answered is not counted (TimeBlind's
    ``build_answers``). The robust reading reads a missing answer as an empty one, whatever this says.
    """

    units: str | tuple[tuple[str, ...], ...] = "each"
    invalid: InvalidPolicy = "wrong"
    invalid_official: InvalidPolicy | None = None
    score_gt: str | None = None
    strata: Strata | None = None
    official_read_first: tuple[tuple[str, ...], ...] = ()
    official_missing: MissingPolicy = "as_empty"

    def __post_init__(self) -> None:
        if self.official_missing not in MISSING_POLICIES:
            raise ValueError(f"official_missing {self.official_missing!r}: one of {', '.join(MISSING_POLICIES)}")
        if isinstance(self.units, str):
            if self.units not in ("each", "all"):
                raise ValueError(f"units {self.units!r}: 'each', 'all' or tuples of roles")
        else:  # role tuples, hashable (a metric keys the results of an aggregation pass)
            object.__setattr__(self, "units", tuple(tuple(unit) for unit in self.units))
        if self.score_gt is not None and any(len(unit) != 2 for unit in self.units):
            raise ValueError(f"score_gt compares two roles; units {self.units!r} are not pairs")
        object.__setattr__(self, "official_read_first", tuple(tuple(unit) for unit in self.official_read_first))
        if self.official_read_first and isinstance(self.units, str):
            raise ValueError(f"official_read_first needs role-tuple units, not {self.units!r}")

    def roles(self) -> set[str]:
        """The roles its units (and ``official_read_first``) name."""
        units = () if isinstance(self.units, str) else self.units
        return {r for unit in (*units, *self.official_read_first) for r in unit}


@dataclass(frozen=True)
class Difference:
    """A value that is one value of the same list minus another (VELOCITI's MC bias, B - A), per category too."""

    minuend: str
    subtrahend: str


@dataclass(frozen=True)
class Custom:
    """A value computed by the benchmark's own function over the key's payloads (``"module:function"``, ``.module``
    inside the benchmark's package), such as TemporalBench's caption similarity. No CI, no ``--repeats`` keys."""

    function: str


Value = Metric | Difference | Custom


@dataclass(frozen=True)
class PerCategory:
    """The ``<family>_<category>`` keys of a metric list: one per family and category.

    A question feeds the keys of its categories. Each key is its family's metric over those questions' payloads;
    with ``within``, the key receives whole groups and only questions whose payload field ``within`` (slugged) is
    the category are units (TemporalBench: a video's questions of one category, so that a cut video stays out).
    """

    families: tuple[str, ...]
    categories: tuple[str, ...]
    comment: str = ""
    # "family": every category of one family, then the next family; "category": every family per category.
    by: str = "family"
    within: str | None = None

    def keys(self, category: str | None = None) -> list[str]:
        """Its keys ``<family>_<category>`` in metric-list order; with ``category``, only that category's."""
        return [f"{f}_{c}" for f, c in self.pairs() if category is None or c == category]

    def pairs(self) -> list[tuple[str, str]]:
        """``(family, category)`` of each key, in metric-list order."""
        if self.by == "family":
            return [(f, c) for f in self.families for c in self.categories]
        return [(f, c) for c in self.categories for f in self.families]


@dataclass(frozen=True)
class MetricList:
    """The ``metric_list`` of one task YAML: each of its metrics declared once.

    Entries in order: ``values``, ``diagnostics``, the CIs (``<m>_ci_low``, ``<m>_ci_high`` of each of
    ``ci``), the ``per_category`` blocks, then the ``--repeats`` stability keys of every group metric
    (``stability``). From it come the YAML's metric list (``python -m temporal_tasks.scoring.metric_lists``),
    the aggregation of each key (:mod:`temporal_tasks.scoring.aggregations`, named ``prefix`` + key), the keys
    ``process_results`` returns (:meth:`keys`) and the report's headline.
    """

    file: str  # relative to the benchmark's task folder
    values: Mapping[str, Value]
    ci: tuple[str, ...] = ()
    diagnostics: tuple[str, ...] = ("invalid_rate", "parse_disagreement", "truncated_rate")
    per_category: tuple[PerCategory, ...] = ()
    prefix: str = ""  # prepended to its aggregations' names (two lists of one benchmark with the same keys)
    lower_is_better: tuple[str, ...] = ()  # families whose keys are better when lower (diagnostics always are)
    comment: str = ""  # a comment line above the entries
    stability: bool = True  # False for log-likelihood tasks (one score per question)
    label: str = ""  # names its payloads in warnings and errors (default: the benchmark's name)

    def keys(self, categories: Iterable[str] = (), repeats: bool = False) -> list[str]:
        """The keys a question feeds: values, diagnostics, CIs, then the per-category keys of those of
        ``categories`` (slugs) its blocks have, and with ``repeats`` (k > 1 answers) the stability keys of its group
        metrics. ``process_results`` returns exactly these (:func:`temporal_tasks.scoring.payloads.results_for`)."""
        cis = [f"{m}{end}" for m in self.ci for end in ("_ci_low", "_ci_high")]
        mine = set(categories)
        pairs = [(f, f"{f}_{c}") for block in self.per_category for f, c in block.pairs() if c in mine]
        keys = [*self.values, *self.diagnostics, *cis, *(key for _f, key in pairs)]
        if repeats and self.stability:
            grouped = [k for k, v in self.values.items() if isinstance(v, Metric)]
            grouped += [key for f, key in pairs if isinstance(self.values[f], Metric)]
            keys += [f"{k}_{s}" for k in grouped for s in STABILITY]
        return keys


# The stability keys ``<metric>_<suffix>`` of a sampled run (``--repeats k``, k > 1), and whether higher is better.
STABILITY = {"consensus_accuracy": True, "consistency_rate": True, "repeat_sd": False}


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

    # Shortcut analyses (temporal_tasks.harness.shortcuts) and the lm-eval language-only control.
    shortcut_main: str | None = None  # the main task the variants copy
    blind_task: str | None = None  # its no-visual variant, when not ``<shortcut_main>_blind``

    # check-data: published sizes, keyed by (part key, what).
    published: Mapping[tuple[str, str], int] = field(default_factory=dict)

    # Hooks, "module:function" (``.module`` is relative to ``package``); None: the benchmark has none. Each must fit
    # its contract in temporal_tasks.api.contracts (HOOKS), checked when the benchmark registers.
    check: str | None = None  # (BenchmarkData, videos to decode per part) -> list[Part]
    export: str | None = None  # ({task: [(payload, doc)]}, out dir) -> files written, in the official scorers' format
    view: str | None = None  # (a failed group's re-read payloads) -> its failure shape in `temporal-tasks view`
    # (SourceFile, ImportContext) -> FileImport (temporal_tasks.api.contracts): one official answer file, mapped
    importer: str | None = None
    fixture: str | None = None  # (root) -> the small synthetic copy's folder ``root/<name>``
    fixture_full: str | None = None  # (root) -> the synthetic copy at the published sizes
    demo_tasks: tuple[str, ...] = ()  # the tasks `temporal-tasks demo` runs on the small fixture
    prebuild: str | None = None  # (num_frames) -> files built: `temporal-tasks prebuild` (cached derived videos)
    references: str | None = None  # a JSON file in ``package``: published numbers shown by `report`
    parsers: str | None = None  # the module registering its answer parsers (answers.parsing.register_parser)

    # The metric lists of its task YAMLs: every metric key declared once.
    metric_lists: tuple[MetricList, ...] = ()
    # The roles its questions play in their groups, where its metrics' units name roles (a unit naming another
    # role is an error here, at import).
    roles: tuple[str, ...] = ()

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
        for ml in self.metric_lists:
            self._check(ml)

    def _check(self, ml: MetricList) -> None:
        """A metric list's declarations refer only to what the benchmark and the list declare."""
        where = f"{self.name} ({ml.file})"
        for key, value in ml.values.items():
            if isinstance(value, Metric) and value.roles() - set(self.roles):
                raise ValueError(
                    f"{where}: metric {key} has units naming roles {sorted(value.roles() - set(self.roles))} that the "
                    f"benchmark does not declare (roles={self.roles!r}); fix the spelling or declare them."
                )
            if isinstance(value, Difference) and {value.minuend, value.subtrahend} - set(ml.values):
                raise ValueError(f"{where}: {key} is a difference of values the list does not have.")
        for block in ml.per_category:
            for family in block.families:
                declared = ml.values.get(family)
                if isinstance(declared, Difference) and {declared.minuend, declared.subtrahend} - set(block.families):
                    raise ValueError(f"{where}: the per-category {family} is a difference of keys the block lacks.")
        named = {*ml.ci, *(f for block in ml.per_category for f in block.families)}
        not_metrics = sorted(n for n in ml.ci if not isinstance(ml.values.get(n), Metric))
        unknown = sorted(named - set(ml.values))
        if unknown or not_metrics:
            raise ValueError(f"{where}: CIs or category families {unknown or not_metrics} are not metrics of the list.")

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

    def required_hook(self, name: str) -> Callable[..., Any]:
        """The hook ``name`` as a callable, for a command that needs it: a ``ValueError`` when the benchmark declares
        none (the commands offer only the benchmarks that declare it)."""
        found = self.hook(name)
        if found is None:
            raise ValueError(f"{self.name}: declares no {name} hook; set {name}= in its spec to use it.")
        return found

    def resource(self, filename: str) -> Path:
        """A data file shipped inside ``package`` (e.g. its reference numbers)."""
        module = importlib.import_module(self.package)
        if module.__file__ is None:  # a namespace package: no folder of its own to ship files in
            raise ValueError(
                f"{self.name}: package {self.package!r} has no __init__.py, so its data files cannot be found; "
                "add an __init__.py to it."
            )
        return Path(module.__file__).resolve().parent / filename

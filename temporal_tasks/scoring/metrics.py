"""The scoring core's ``_reduce`` step: a :class:`Metric` over a payload table, as per-group counts, then a value.

A metric reduces the payloads of :func:`temporal_tasks.scoring.payloads.make_payload` to per-group ``[right units,
units]`` counts; its value and group-bootstrap CI come from those counts alone (:mod:`.bootstrap`), as ``compare``'s
do. One policy for every benchmark: payloads come in any order (lmms-eval gathers ranks in rank order), so all
groups by ``group_id`` and ``role``; a group with members never evaluated (``--limit``/``--offset``) is left out of
every denominator, with one warning; a repeated answer counts once. A metric with nothing to score is NaN. A metric
whose invalid-answer policy differs in the official reading follows the reading the payloads were read in (their
``parser_mode``, :func:`~temporal_tasks.scoring.table.payload_reading`), never the environment at scoring time.

lmms-eval calls one aggregation per metric key, each with its own list of the same payloads (a category key: some
of them). The tables of an evaluation and their results are kept in the run state: a list equal (``==``) to one
met before is served by its table; a list whose payloads are, by question id and content, some of an earlier
list's is served by a table made from that list's columns. Payloads do not change while they are aggregated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from temporal_tasks.api.spec import InvalidPolicy, Metric, slug
from temporal_tasks.base.log import warn_once
from temporal_tasks.base.run_state import STATE
from temporal_tasks.scoring.bootstrap import (
    GroupOutcomes,
    bootstrap_ci,
    bootstrap_ci_repeats,
    percent,
    stratified_percent,
    stratum_percentages,
)
from temporal_tasks.scoring.table import DISAGREE, READINGS, Columns, Payload, PayloadTable

MAX_TABLES = 24  # a task's distinct lists: the headline list, its primary copy, one per category or source
Within = tuple[str, str] | None  # (payload field, category slug): only those questions are units


@dataclass(frozen=True)
class MetricResult:
    """A metric's value; with ``--repeats k`` (k > 1) the mean over the repeats of the metric on each, and its
    stability: the metric on each question's majority reading, the percent of groups whose outcome is the same in
    every repeat, the sample SD of the per-repeat values (NaN with one answer per question)."""

    value: float
    consensus_accuracy: float = math.nan
    consistency_rate: float = math.nan
    repeat_sd: float = math.nan


# --------------------------------------------------------------------------- the tables of an evaluation


@dataclass
class Scored:
    """A payload list met in this evaluation: a copy of it, its table and what was computed from it."""

    items: list
    table: PayloadTable
    columns: Columns
    at: np.ndarray | None = None  # positions of ``items`` in ``columns`` (None: the columns are ``items``')
    results: dict = field(default_factory=dict)
    where: dict | None = None  # question id -> its first position in ``items``, made when asked for a subset

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per ``key`` for this list."""
        if key not in self.results:
            self.results[key] = compute()
        return self.results[key]

    def subset(self, items: list, label: str) -> Scored | None:
        """``items`` as some of this list's payloads (this list read on its own): found by question id, confirmed
        by content; else None."""
        try:
            if self.where is None:
                self.where = {}
                for i, p in enumerate(self.items):
                    self.where.setdefault(p["question_id"], i)
            at = [self.where[p["question_id"]] for p in items]
        except (KeyError, TypeError):  # a payload without a question id, or one of another list
            return None
        if not _equal([self.items[i] for i in at], items):
            return None
        positions = np.asarray(at, dtype=np.int64)
        return Scored(items, PayloadTable.build(items, self.columns, positions, label), self.columns, positions)


def _equal(a: list, b: list) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a payload value whose == is not a bool: not the same list
        return False


def scored(items: Sequence[Payload], label: str = "") -> Scored:
    """The table of ``items`` and its results: a list met before, some of one's payloads, or read now."""
    given = list(items)
    tables: list[Scored] = STATE.tables
    for seen in reversed(tables):
        if len(seen.items) == len(given) and _equal(seen.items, given):
            return seen
    found = None
    for seen in reversed(tables):  # a list made from another's columns holds some of that one's payloads too
        if seen.at is None and len(seen.items) > len(given) and (found := seen.subset(given, label)):
            break
    if found is None:
        columns = Columns.read(given, label)
        found = Scored(given, PayloadTable.build(given, columns, label=label), columns)
    tables.append(found)
    del tables[:-MAX_TABLES]
    return found


def reset_tables() -> None:
    """Forget the tables of this evaluation (tests, ``bench``; lmms-eval's evaluations reset the run state)."""
    STATE.tables.clear()


# --------------------------------------------------------------------------- reduce: counts per group


def policy(metric: Metric, reading: str | None) -> InvalidPolicy:
    """The invalid-answer policy of ``metric`` for payloads read in ``reading``, their reading
    (:func:`~temporal_tasks.scoring.table.payload_reading`; None: no mode recorded, the robust default)."""
    if metric.invalid_official is not None and reading == "official":
        return metric.invalid_official
    return metric.invalid


def group_counts(table: PayloadTable, metric: Metric, within: Within = None) -> np.ndarray:
    """Per complete group and reading, ``[right units, units]``: a (groups, w, 2) array."""
    rule = policy(metric, table.reading)
    mine = None
    if within is not None:
        name, category = within
        values = table.values(name)
        slugs = {v: slug(str(v or "")) for v in set(values)}  # a few distinct values (categories)
        mine = np.array([slugs[v] == category for v in values], dtype=bool)
    missing = metric.official_missing if table.reading == "official" and table.missing.any() else "as_empty"
    if missing == "not_counted":  # the official scorer counts only the questions its file has a line for
        mine = ~table.missing[:, 0] if mine is None else mine & ~table.missing[:, 0]
    if isinstance(metric.units, str):
        right, total = _row_counts(table, metric.units, rule, mine)
    else:
        right, total = _unit_counts(table, metric, rule, mine)
    if rule == "drop_group":  # every unit of a group holding an unreadable answer leaves
        usable = table.per_group(table.invalid) == 0
        right, total = right * usable, total * usable
    if missing == "void_group":  # a group with a member missing is all wrong; one with no answer is not counted
        absent = table.per_group(table.missing)
        answered = absent < table.per_group(np.ones_like(table.missing))
        right, total = right * (absent == 0), total * answered
    right, total = np.broadcast_arrays(right, total)
    return np.stack([right, total], axis=-1)[table.complete].astype(np.int64)


def _row_counts(table: PayloadTable, units: str, rule: str, mine: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    # Questions ("each") and whole groups ("all") are counted per row with bincount: no (group, role) matrix, which
    # for a benchmark whose roles are its question ids (TemporalBench) would be groups x questions.
    unit = np.ones((len(table.group), 1), dtype=bool) if mine is None else mine[:, None]
    members = table.per_group(unit)
    bad = table.per_group(unit & table.invalid)
    if units == "each":
        return table.per_group(unit & table.correct), members - bad * (rule == "drop")
    any_member = members > 0
    right = ((table.per_group(unit & ~table.correct) == 0) & any_member).astype(np.int64)
    total = np.broadcast_to(any_member, right.shape).astype(np.int64)
    if rule == "drop":
        right, total = right * (bad == 0), total * (bad == 0)
    return right, total


def _unit_counts(
    table: PayloadTable, metric: Metric, rule: str, mine: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    # Role tuples (a few roles per group: TimeBlind, Vinoground, VELOCITI) through (group, role, reading) matrices.
    present = table.role_matrix(np.ones(len(table.group), dtype=bool) if mine is None else mine)[:, :, None]
    correct, bad = table.role_matrix(table.correct), table.role_matrix(table.invalid)
    if metric.score_gt is not None:
        scores = np.array([math.nan if v is None else float(v) for v in table.values(metric.score_gt)], dtype=float)
        score = table.role_matrix(scores, fill=np.nan)[:, :, None]
    code = {name: i for i, name in enumerate(table.role_names)}
    right = np.zeros(correct.shape[:1] + correct.shape[2:], dtype=np.int64)
    total = np.zeros_like(right)
    reached = _official_reached(table, metric, correct, code)
    for unit in metric.units:
        if any(role not in code for role in unit):
            continue  # a declared role no evaluated question has: no group holds this unit
        cols = [code[role] for role in unit]
        applies = present[:, cols].all(axis=1)
        if rule == "drop":
            applies = applies & ~bad[:, cols].any(axis=1)
        if metric.score_gt is not None:
            a, b = score[:, cols[0]], score[:, cols[1]]
            with np.errstate(invalid="ignore"):
                ok = ~np.isnan(a) & ~np.isnan(b) & (a > b)
        else:
            ok = correct[:, cols].all(axis=1)
        total = total + applies
        right = right + (applies & ok & reached)
    return right, total


def _official_reached(table: PayloadTable, metric: Metric, correct: np.ndarray, code: dict[str, int]) -> np.ndarray:
    """Per group and reading, whether the official loop reaches the metric's units (``official_read_first``).

    Vinoground's ``get_score_all.py`` reads ``text(pos) and text(neg)``, then the video pair, in one ``try`` whose
    ``except: continue`` skips the rest of the pair when ``response[0]`` raises on an empty answer. A role is read
    only while the ones before it in its unit are right (``and``), so an empty answer after a wrong one is never
    read and stops nothing. Only in the ``official`` reading; everywhere else every unit is reached.
    """
    reached = np.ones(correct.shape[:1] + correct.shape[2:], dtype=bool)
    if not metric.official_read_first or table.reading != "official":
        return reached
    empty = table.role_matrix(table.empty)
    for unit in metric.official_read_first:
        if any(role not in code for role in unit):
            continue  # no evaluated question has this unit (a task without those questions): nothing is read
        read = np.ones_like(reached)  # the loop reads this role
        for role in unit:
            reached = reached & ~(read & empty[:, code[role]])
            read = read & correct[:, code[role]]
    return reached


# --------------------------------------------------------------------------- values and CIs


def _strata(table: PayloadTable, metric: Metric, one_stratum: bool) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """Per complete group, its stratum (its first member's field), and the strata left out of the mean."""
    if metric.strata is None:
        return None, ()
    labels = np.asarray(table.first_values(metric.strata.field), dtype=object)[table.complete]
    return labels, () if one_stratum else metric.strata.exclude


def _value(counts: np.ndarray, strata: np.ndarray | None, metric: Metric, one_stratum: bool, where: str) -> float:
    """The value of per-group ``[right, units]`` counts: pooled, one stratum's, or the mean of the strata's."""
    if strata is None or metric.strata is None:
        return percent(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
    if one_stratum:
        per = stratum_percentages(counts, strata)
        if len(per) > 1:
            raise ValueError(f"{where}: a per-stratum key received several strata {sorted(per)}")
        return next(iter(per.values())) if per else math.nan
    keep = ~np.isin(strata, list(metric.strata.exclude))
    expected = [s for s in metric.strata.order if s not in metric.strata.exclude]
    having = {s for s, v in stratum_percentages(counts[keep], strata[keep]).items() if not math.isnan(v)}
    if having and len(having) < len(expected):
        warn_once(
            f"{where} averages only {len(having)} of the {len(expected)} {metric.strata.field} strata (the others had "
            "nothing to score)."
        )
    return stratified_percent(counts[keep], strata[keep].tolist(), metric.strata.order)


def _counts(entry: Scored, metric: Metric, within: Within) -> np.ndarray:
    return entry.memo(("counts", metric, within), lambda: group_counts(entry.table, metric, within))


def score(
    items: Sequence[Payload],
    metric: Metric,
    *,
    label: str = "",
    key: str = "",
    report: bool = False,
    within: Within = None,
    one_stratum: bool = False,
) -> MetricResult:
    """A metric's value (and, with ``--repeats``, its stability) over ``items``.

    ``report``: warn once about groups left out. ``within``: only questions whose field is the category are units.
    ``one_stratum``: a per-stratum key of a stratified metric (one stratum's pooled value; several is an error).
    """
    if not items:
        return MetricResult(math.nan)
    entry = scored(items, label)
    if report:
        _warn_left_out(label, entry.table)
    where = f"{label}: {key}"
    return entry.memo(
        ("score", metric, within, one_stratum),
        lambda: _score(entry, metric, within, one_stratum, where),
    )


def _score(entry: Scored, metric: Metric, within: Within, one_stratum: bool, where: str) -> MetricResult:
    counts = _counts(entry, metric, within)
    strata, exclude = _strata(entry.table, metric, one_stratum)
    k = entry.table.repeats
    if k == 1:
        return MetricResult(_value(counts[:, 0], strata, metric, one_stratum, where))
    # Stability is per group, not per question: a group's outcome (its counts) is what must be stable.
    values = np.array([_value(counts[:, r], strata, metric, one_stratum, where) for r in range(k)], dtype=float)
    consensus = _value(counts[:, k], strata, metric, one_stratum, where)
    keep = (counts[:, :k, 1] > 0).any(axis=1)
    if strata is not None:
        keep &= ~np.isin(strata, list(exclude))
    same = (counts[:, :k] == counts[:, :1]).all(axis=(1, 2))
    consistency = percent(int((same & keep).sum()), int(keep.sum()))
    # A repeat with nothing to score (e.g. VELOCITI's official rule dropped all its pairs) has no value: the mean and
    # SD are over the repeats that have one.
    have = values[~np.isnan(values)]
    value = float(have.sum() / len(have)) if len(have) else math.nan
    sd = float(np.std(have, ddof=1)) if len(have) > 1 else math.nan
    return MetricResult(value, consensus, consistency, sd)


def ci(items: Sequence[Payload], metric: Metric, *, label: str = "") -> tuple[float, float]:
    """The metric's group-bootstrap 95% CI (groups resampled within strata; with ``--repeats``, with their k
    outcomes together)."""
    if not items:
        return math.nan, math.nan
    entry = scored(items, label)
    return entry.memo(("ci", metric), lambda: _ci(entry, metric))


def _ci(entry: Scored, metric: Metric) -> tuple[float, float]:
    counts = _counts(entry, metric, None)
    strata, exclude = _strata(entry.table, metric, False)
    k = entry.table.repeats
    keep = (counts[:, :k, 1] > 0).any(axis=1)
    if strata is not None:
        keep &= ~np.isin(strata, list(exclude))
    kept = None if strata is None else strata[keep].tolist()
    if k == 1:
        return bootstrap_ci(counts[keep, 0], kept)
    return bootstrap_ci_repeats(counts[keep, :k], kept)


def outcomes(items: Sequence[Payload], metric: Metric, *, label: str = "", one_stratum: bool = False) -> GroupOutcomes:
    """The per-group counts behind :func:`score` (complete groups that hold a unit, excluded strata left out) with
    their group ids: what ``compare`` and ``view`` resample and show. With ``--repeats``, the first answer's."""
    if not items:
        return GroupOutcomes([], np.zeros((0, 2), dtype=np.int64))
    entry = scored(items, label)
    counts = _counts(entry, metric, None)[:, 0]
    ids = np.asarray(entry.table.group_ids, dtype=object)[entry.table.complete]
    strata, exclude = _strata(entry.table, metric, one_stratum)
    keep = counts[:, 1] > 0
    if strata is None:
        return GroupOutcomes(ids[keep].tolist(), counts[keep])
    keep &= ~np.isin(strata, list(exclude))
    order = metric.strata.order if metric.strata else ()
    return GroupOutcomes(ids[keep].tolist(), counts[keep], [str(s) for s in strata[keep].tolist()], order)


def question_rate(items: Sequence[Payload], bit: int, label: str = "") -> float:
    """Percent of the answers to questions of complete groups whose flag ``bit`` (:mod:`~.table`) holds: every
    answer of ``--repeats k`` counts. Readings that disagree (``DISAGREE``) count only answers with both."""
    if not items:
        return math.nan
    table = scored(items, label).table
    flags = table.reading_flags
    counted = np.broadcast_to(table.complete[table.group][:, None], flags.shape)
    if bit == DISAGREE:
        counted = counted & ((flags & READINGS) != 0)
    return percent(int((counted & ((flags & bit) != 0)).sum()), int(counted.sum()))


def complete_groups(items: Sequence[Payload]) -> int:
    """How many groups of ``items`` have every member answered (payloads with or without an answer to read)."""
    return int(PayloadTable.build(items, Columns.read(items, "", answers=False)).complete.sum())


def _warn_left_out(label: str, table: PayloadTable) -> None:
    left_out = int((~table.complete).sum())
    if left_out or table.duplicates:
        msg = (
            f"{label}: scored {int(table.complete.sum())} complete groups; left out {left_out} incomplete "
            f"group(s) whose other questions were not evaluated (--limit/--offset)"
        )
        if table.duplicates:
            msg += f"; ignored {table.duplicates} repeated answer(s) to the same question"
        warn_once(msg)

"""VELOCITI (Saravanan et al., CVPR 2025): StrictVLE, ClassicVLE and two-order multiple choice.

Layout (HF ``katha-ai-iiith/VELOCITI``): one annotation table (parquet, at the root or under
``data/``) with columns ``video_id, test_name, event, pos, neg, in_subset``, and
``velociti_videos.zip`` holding ``velociti_videos/{video_id}.mp4``. ``row`` is the 0-based
row number in the table's order; every question id derives from it.

Tasks:

- ``velociti_strictvle`` (+ ``_subset``): each row asks the entailment prompt twice (C+ and
  C-, ``{row}_pos`` / ``{row}_neg``); a row is right iff pos is Yes and neg is No.
- ``velociti_strictvle_prob``: the same two questions scored by P(Yes)/(P(Yes)+P(No)) from
  log-likelihoods, as the paper does for open models (StrictVLE and ClassicVLE).
- ``velociti_mc``: both captions as options, asked with C+ as A and again with C+ as B.

Averages (``strict_vle``, ``classic_vle``, ``mc_*``) are the unweighted mean of the 7 tests,
control excluded, as in the paper's "Avg" column.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from temporal_tasks.data import (
    BenchmarkData,
    DataError,
    benchmark_data,
    check_files_exist,
    check_unique,
    content_dirs,
    find_in,
)
from temporal_tasks.harness import answers, docs_dataset, make_payload, share, with_repeat_keys
from temporal_tasks.log import logger, warn_once
from temporal_tasks.parsing import (
    YES_NO_OPTIONS,
    Parser,
    make_robust_letter,
    option,
    parser_mode,
    register_parser,
    robust_yes_no,
)
from temporal_tasks.scoring import (
    GroupOutcomes,
    InvalidPolicy,
    Metric,
    MetricResult,
    group_outcomes,
    question_rate,
    score,
    stability_aggregations,
)

NAME = "velociti"
FIELDS = ("video_id", "test_name", "event", "pos", "neg", "in_subset")
CONTROL = "control"
# The 7 tests of the paper's average, in the paper's column order, then the control test.
TESTS = ("agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")
ALL_TESTS = (CONTROL, *TESTS)
V1_TESTS = ("agent_iden", "action_mod", "sequence", "ivat")
VIDEO_ZIP = "velociti_videos.zip"
VIDEO_DIR = "velociti_videos"
NEEDS = ("*.parquet", VIDEO_ZIP)  # what an online run downloads (allow_patterns; `*` crosses folders: data/)

# Official CVPR prompts (vidllm_eval.py), verbatim; the entailment one ends with a space.
ENTAIL_PROMPT = (
    "Carefully watch the video and pay attention to the sequence of events, the details and actions of persons.\n"
    "Here is a caption that describes the video: {caption}\n"
    "Based on your observation, does the given video entail the caption? Just answer with either Yes or No. "
)
MC_PROMPT = (
    "Carefully watch the video and pay attention to the sequence of events, the details and actions of persons. "
    "Here are two captions that describe the video. A) {cap1} B) {cap2}\n"
    "Based on your observation, select the caption that best describes the video. Just print either A or B."
)


# --------------------------------------------------------------------------- parsers


def official_yes_no(text: str) -> str | None:
    """``gemini/closed_model_metrics.py``: case-sensitive substring test; both or neither is an error."""
    has_yes, has_no = "Yes" in text, "No" in text
    if has_yes and not has_no:
        return "yes"
    if has_no and not has_yes:
        return "no"
    return None


def official_mc(text: str) -> str | None:
    """``metrics.py::mcq``: the first whitespace token must be exactly ``A`` or ``B`` (empty is invalid)."""
    tokens = text.split()
    return tokens[0] if tokens and tokens[0] in ("A", "B") else None


YES_NO = register_parser(Parser("velociti_yes_no", ("yes", "no"), robust_yes_no, official_yes_no))
MC = register_parser(Parser("velociti_mc", ("A", "B"), make_robust_letter("AB"), official_mc))


# --------------------------------------------------------------------------- data


_SHARD = re.compile(r"^(?P<prefix>.+)-(?P<i>\d+)-of-(?P<n>\d+)\.parquet$")


def _tables(root: Path) -> list[list[Path]]:
    """Candidate annotation tables: each root ``*.parquet`` alone, ``data/`` shards grouped per split."""
    tables: list[list[Path]] = [[p] for p in sorted(root.glob("*.parquet"))]
    shards: dict[str, list[Path]] = defaultdict(list)
    data_dir = root / "data"
    for p in sorted(data_dir.rglob("*.parquet")) if data_dir.is_dir() else []:
        m = _SHARD.match(p.name)
        if m:
            shards[str(p.parent / m.group("prefix"))].append(p)
        else:
            tables.append([p])
    for prefix, files in sorted(shards.items()):
        want = int(_SHARD.match(files[0].name).group("n"))
        have = sorted(int(_SHARD.match(f.name).group("i")) for f in files)
        if have != list(range(want)):
            raise DataError(
                f"{NAME}: parquet shards {prefix}-*-of-{want:05d}.parquet are incomplete (have {have}). "
                "Fix: re-download the data/ folder of katha-ai-iiith/VELOCITI."
            )
        tables.append(sorted(files))
    return tables


def _read_table(files: Sequence[Path]):
    import pandas as pd

    try:
        frames = [pd.read_parquet(f) for f in files]
    except Exception as exc:  # pyarrow raises several classes for a broken file
        raise DataError(f"{NAME}: cannot read {files[0]} ({type(exc).__name__}: {exc}). Fix: re-download it.") from None
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)


def read_annotations(data: BenchmarkData) -> tuple[list[dict], str]:
    """The annotation rows in table order, and the name of the file(s) they came from.

    Several candidate tables are accepted only if they hold the same rows; otherwise the
    choice would silently change which rows (and row numbers) are evaluated.
    """
    tables = _tables(data.root)
    if not tables:
        raise DataError(
            f"{NAME}: no annotation table (*.parquet) in {data.root} or {data.root / 'data'}. Fix: copy the parquet "
            "file of the Hugging Face dataset katha-ai-iiith/VELOCITI into that folder (same layout as the repo)."
        )
    names = [", ".join(str(f.relative_to(data.root)) for f in files) for files in tables]
    frame = _read_table(tables[0])
    for files, name in zip(tables[1:], names[1:], strict=True):
        other = _read_table(files)
        if list(other.columns) != list(frame.columns) or not other.equals(frame):
            raise DataError(
                f"{NAME}: {data.root} holds several annotation tables that differ ({names[0]} vs {name}). "
                "Fix: keep only the official parquet file of katha-ai-iiith/VELOCITI."
            )
    where = f"{data.root / names[0]}"
    missing = [f for f in FIELDS if f not in frame.columns]
    if missing:
        raise DataError(
            f"{where}: missing column(s) {missing} (has {list(frame.columns)}). This is not the CVPR VELOCITI table; "
            "re-download katha-ai-iiith/VELOCITI."
        )
    if len(frame) == 0:
        raise DataError(f"{where}: the table has no rows. Re-download it.")
    return frame.to_dict("records"), where


def _as_bool(value: Any, where: str) -> bool:
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise DataError(f"{where}: in_subset {value!r} is not a boolean. Re-download the table.")


def _text(value: Any, field: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: {field} {value!r} must be a non-empty string. Re-download the table.")
    return value


def _event(value: Any) -> str:
    # Opaque metadata (a string like "Ev3", or a tuple/list for multi-event tests); kept as text.
    if isinstance(value, str):
        return value
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return "" if value is None else str(value)


def load_rows(data: BenchmarkData | None = None) -> list[dict]:
    """Validated rows ``{row, video_id, test_name, event, pos, neg, in_subset, video}`` in table order."""
    data = data or benchmark_data(NAME, needs=NEEDS)
    raw, where = read_annotations(data)
    rows = []
    unknown: Counter = Counter()
    for i, r in enumerate(raw):
        at = f"{where} row {i}"
        test = r["test_name"]
        if test not in ALL_TESTS:
            unknown[str(test)] += 1
            continue
        video_id = _text(r["video_id"], "video_id", at).strip()
        rows.append(
            {
                "row": i,
                "video_id": video_id,
                "test_name": test,
                "event": _event(r["event"]),
                "pos": _text(r["pos"], "pos", at),
                "neg": _text(r["neg"], "neg", at),
                "in_subset": _as_bool(r["in_subset"], at),
            }
        )
    if unknown:
        v1 = sorted(set(unknown) & set(V1_TESTS))
        hint = " These are test names of the older VELOCITI v1, not the CVPR version." if v1 else ""
        raise DataError(
            f"{where}: unknown test_name value(s) {dict(unknown)}; expected {list(ALL_TESTS)}.{hint} "
            "Fix: use the current table of katha-ai-iiith/VELOCITI."
        )
    dirs = content_dirs(data, [VIDEO_ZIP])
    videos: dict[str, Path] = {}
    for r in rows:
        stem = r["video_id"].removesuffix(".mp4")
        if stem not in videos:
            found = find_in(dirs, f"{VIDEO_DIR}/{stem}.mp4") or find_in(dirs, f"{stem}.mp4")
            videos[stem] = found or data.root / VIDEO_DIR / f"{stem}.mp4"
        r["video"] = str(videos[stem])
    check_files_exist(
        videos.values(), f"{NAME} ({where})",
        f"copy {VIDEO_ZIP} of katha-ai-iiith/VELOCITI into {data.root} (it is extracted automatically), "
        f"or unzip it there so that {VIDEO_DIR}/<video_id>.mp4 exists",
    )  # fmt: skip
    counts = Counter(r["test_name"] for r in rows)
    subset = Counter(r["test_name"] for r in rows if r["in_subset"])
    logger.info(
        f"{NAME}: {len(rows)} rows from {where}; per test (full/subset): "
        + ", ".join(f"{t} {counts.get(t, 0)}/{subset.get(t, 0)}" for t in ALL_TESTS)
    )
    missing = [t for t in ALL_TESTS if not counts.get(t)]
    if missing:
        warn_once(f"{NAME}: {where} has no rows for test(s) {missing}; their metrics are NaN.")
    return rows


def _doc(
    r: dict, qid: str, group: str, role: str, prompt: str, gold: str, parser: str, options: list[dict], **extra: Any
) -> dict:
    return {
        "question_id": qid,
        "group_id": f"{group}/{r['row']}",
        "role": role,
        "group_size": 2,
        "prompt": prompt,
        "gold": gold,
        "parser": parser,
        "options": options,
        "videos": [r["video"]],
        "categories": [r["test_name"]],
        "row": r["row"],
        "video_id": r["video_id"],
        "test_name": r["test_name"],
        "event": r["event"],
        "in_subset": r["in_subset"],
        **extra,
    }


def entail_docs(rows: Iterable[dict]) -> list[dict]:
    """Two docs per row: C+ (gold yes) then C- (gold no), sharing the row's group."""
    docs = []
    for r in rows:
        for role, gold in (("pos", "yes"), ("neg", "no")):
            caption = r[role]
            prompt = ENTAIL_PROMPT.format(caption=caption)
            yes_no = [dict(o) for o in YES_NO_OPTIONS]
            docs.append(
                _doc(r, f"{r['row']}_{role}", "velociti", role, prompt, gold, YES_NO.name, yes_no, caption=caption)
            )
    return docs


def mc_docs(rows: Iterable[dict]) -> list[dict]:
    """Two docs per row: C+ as option A (gold A), then C+ as option B (gold B)."""
    docs = []
    for r in rows:
        for role, cap1, cap2, gold in (("posA", r["pos"], r["neg"], "A"), ("posB", r["neg"], r["pos"], "B")):
            prompt = MC_PROMPT.format(cap1=cap1, cap2=cap2)
            opts = [option("A", cap1), option("B", cap2)]
            docs.append(_doc(r, f"{r['row']}_mc_{role}", "velociti_mc", role, prompt, gold, MC.name, opts, caption=""))
    return docs


def load_docs(data: BenchmarkData | None = None, *, kind: str = "all", subset: bool = False) -> list[dict]:
    """VELOCITI docs: ``kind`` is ``entail`` (StrictVLE, both variants), ``mc``, or ``all`` (both, e.g. for
    replay files covering every task; their ids never collide); ``subset`` keeps the ``in_subset`` rows."""
    if kind not in ("entail", "mc", "all"):
        raise ValueError(f"kind must be 'entail', 'mc' or 'all', not {kind!r}")
    rows = load_rows(data)
    if subset:
        rows = [r for r in rows if r["in_subset"]]
        if not rows:
            raise DataError(f"{NAME}: no row has in_subset == True; the subset task has nothing to evaluate.")
    docs = (entail_docs(rows) if kind != "mc" else []) + (mc_docs(rows) if kind != "entail" else [])
    check_unique((d["question_id"] for d in docs), NAME)
    return docs


def process_docs(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """``velociti_strictvle`` / ``velociti_strictvle_prob``: every row, C+ and C- questions."""
    return docs_dataset(lambda: load_docs(kind="entail"))


def process_docs_subset(dataset):  # noqa: ARG001
    """``velociti_strictvle_subset`` / ``velociti_strictvle_prob_subset``: the 150-per-test ``in_subset`` rows."""
    return docs_dataset(lambda: load_docs(kind="entail", subset=True))


def process_docs_mc(dataset):  # noqa: ARG001
    """``velociti_mc``: every row, asked with C+ as option A and as option B."""
    return docs_dataset(lambda: load_docs(kind="mc"))


def process_docs_mc_subset(dataset):  # noqa: ARG001
    """``velociti_mc_subset``: the ``in_subset`` rows, in both orders."""
    return docs_dataset(lambda: load_docs(kind="mc", subset=True))


# --------------------------------------------------------------------------- process_results

STRICT_KEYS = (
    "strict_vle", "strict_vle_ci_low", "strict_vle_ci_high", "invalid_rate", "parse_disagreement", "truncated_rate",
    *(f"strict_vle_{t}" for t in ALL_TESTS),
)  # fmt: skip
PROB_KEYS = (
    "strict_vle", "classic_vle", "invalid_rate",
    "strict_vle_ci_low", "strict_vle_ci_high", "classic_vle_ci_low", "classic_vle_ci_high",
    *(f"strict_vle_{t}" for t in ALL_TESTS), *(f"classic_vle_{t}" for t in ALL_TESTS),
)  # fmt: skip
MC_METRICS = ("mc_a", "mc_b", "mc_bias", "mc_both")
MC_KEYS = (
    *MC_METRICS, "invalid_rate", "parse_disagreement", "truncated_rate", "mc_both_ci_low", "mc_both_ci_high",
    *(f"{m}_{t}" for m in MC_METRICS for t in ALL_TESTS),
)  # fmt: skip


def _keys_for(payload: dict, keys: Sequence[str]) -> dict[str, dict]:
    # A per-test key only receives that test's questions; headline keys receive all of them.
    test = payload["test"]
    kept = [k for k in keys if not any(k.endswith(f"_{t}") for t in ALL_TESTS) or k.endswith(f"_{test}")]
    return share(payload, with_repeat_keys(kept, payload))


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """Generated Yes/No answer -> payload under the StrictVLE keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return _keys_for(payload, STRICT_KEYS)


def process_results_mc(doc: dict, results: list) -> dict[str, dict]:
    """Generated A/B answer -> payload under the MC keys."""
    payload = make_payload(doc, answers(results))
    payload["test"] = doc["test_name"]
    return _keys_for(payload, MC_KEYS)


_NUMPY_WRAP = re.compile(r"\b(?:np|numpy)\.\w+\(")
_NUMBER = re.compile(r"[-+]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.I)


def _loss(result: Any) -> float:
    """The loss of one choice's result; NaN if unreadable.

    lmms-eval 0.7.3 turns each ``(loss, is_greedy)`` tuple into its ``str()`` on the way to
    ``process_results`` (``api/instance.py::unwrap_generation_output``), so ``"(0.1, False)"``,
    ``"(inf, False)"`` and ``"(np.float64(0.1), np.True_)"`` arrive as text; a real tuple is
    accepted too in case a later version stops doing that.
    """
    while isinstance(result, list | tuple) and result and isinstance(result[0], list | tuple | str):
        result = result[0]
    value = result[0] if isinstance(result, list | tuple) and result else result
    if isinstance(value, str):
        m = _NUMBER.search(_NUMPY_WRAP.sub("", value))
        if m is None:
            return math.nan
        value = m.group(0)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def entailment_score(loss_yes: float, loss_no: float) -> float | None:
    """e(V,C) = P(Yes) / (P(Yes) + P(No)) from lmms-eval losses (loss = -log p; single-token continuations).

    Computed as ``sigmoid(loss_no - loss_yes)``: the same ratio, without overflow. ``None`` when
    undefined: a NaN loss, or both probabilities 0 (both losses infinite).
    """
    if math.isnan(loss_yes) or math.isnan(loss_no) or (math.isinf(loss_yes) and math.isinf(loss_no)):
        return None
    if loss_yes < 0 or loss_no < 0:
        # A loss is -log p >= 0; a negative value means the wrapper returned a log-probability
        # (or garbage), and reading it as a loss would swap Yes and No: refuse to score it.
        warn_once(f"{NAME}: the model returned negative loglikelihood losses; those questions are scored as invalid.")
        return None
    if math.isinf(loss_yes) or math.isinf(loss_no):
        return 0.0 if math.isinf(loss_yes) else 1.0
    d = loss_no - loss_yes  # = log P(Yes) - log P(No)
    if d >= 0:
        return 1.0 / (1.0 + math.exp(-d))
    z = math.exp(d)
    return z / (1.0 + z)


def process_results_prob(doc: dict, results: list) -> dict[str, dict]:
    """Losses of the continuations ``Yes`` and ``No`` (``doc_to_choice`` order) -> payload with ``p_yes``."""
    results = list(results or [])
    loss_yes = _loss(results[0]) if len(results) > 0 else math.nan
    loss_no = _loss(results[1]) if len(results) > 1 else math.nan
    e = entailment_score(loss_yes, loss_no)
    if e is None or e == 0.5:
        pred = None  # undefined or an exact tie: neither answer wins
    else:
        pred = "yes" if e > 0.5 else "no"
    payload = {
        "question_id": doc["question_id"],
        "group_id": doc["group_id"],
        "role": doc["role"],
        "group_size": int(doc["group_size"]),
        "categories": list(doc.get("categories") or []),
        "test": doc["test_name"],
        "gold": doc["gold"],
        "loss_yes": loss_yes,
        "loss_no": loss_no,
        "p_yes": e,
        "pred": pred,
        "correct": pred is not None and pred == doc["gold"],
    }
    return _keys_for(payload, PROB_KEYS)


# --------------------------------------------------------------------------- aggregation


def _policy() -> InvalidPolicy:
    # Official mode follows the closed-model scripts: a pair with an unreadable answer leaves the denominator.
    return "drop_group" if parser_mode() == "official" else "wrong"


def _metric(units: tuple, *, rule: str = "correct", invalid=_policy, per_test: bool = False) -> Metric:
    """A pair metric; the value is the unweighted mean over the 7 tests present (control excluded), as the
    paper's Avg, with rows resampled within each test for the CI; ``per_test``: one test's key (pooled)."""
    return Metric(
        units, invalid=invalid, rule=rule, score_field="p_yes", strata="test",
        exclude_strata=() if per_test else (CONTROL,), strata_order=TESTS, expect_strata=0 if per_test else len(TESTS),
        one_stratum=per_test,
    )  # fmt: skip


STRICT = (("pos", "neg"),)  # pos read Yes and neg read No (the golds)
METRICS = {
    "strict_vle": _metric(STRICT),
    "mc_a": _metric((("posA",),)),
    "mc_b": _metric((("posB",),)),
    "mc_both": _metric((("posA", "posB"),)),
    # An undefined probability counts as wrong in both modes: metrics.py always has a score, so there
    # is no official drop rule to follow. StrictVLE: e(C+) > 0.5 and e(C-) < 0.5 (the preds' golds);
    # ClassicVLE: e(C+) > e(C-).
    "prob_strict_vle": _metric(STRICT, invalid="wrong"),
    "prob_classic_vle": _metric(STRICT, rule="score_gt", invalid="wrong"),
}
LABELS = {
    "strict_vle": f"{NAME} strict_vle", "mc_a": f"{NAME} mc", "mc_b": f"{NAME} mc", "mc_both": f"{NAME} mc",
    "prob_strict_vle": f"{NAME} strict_vle (prob)", "prob_classic_vle": f"{NAME} strict_vle (prob)",
}  # fmt: skip
REPORTS = ("strict_vle", "mc_a", "prob_strict_vle")  # one warning about cut pairs per task


def _score(items: list, name: str, *, per_test: bool = False) -> MetricResult:
    metric = METRICS[name]
    if per_test:
        metric = replace(metric, exclude_strata=(), expect_strata=0, one_stratum=True)
    key = name.removeprefix("prob_")
    return score(items, metric, label=LABELS[name], key=key, report=name in REPORTS and not per_test)


def strict_vle(items: list) -> float:
    """StrictVLE (pos Yes and neg No), mean of the 7 tests' percentages, control excluded."""
    return _score(items, "strict_vle").value


def strict_vle_test(items: list) -> float:
    """StrictVLE of the questions given (one test's key receives only that test)."""
    return _score(items, "strict_vle", per_test=True).value


def invalid_rate(items: list) -> float:
    """Percent of scored questions whose answer could not be read (or whose score is undefined)."""
    return question_rate(items, "invalid", NAME)


def strict_vle_ci_low(items: list) -> float:
    """StrictVLE average: 95% CI low (bootstrap over rows within tests)."""
    return _score(items, "strict_vle").ci_low


def strict_vle_ci_high(items: list) -> float:
    """StrictVLE average: 95% CI high."""
    return _score(items, "strict_vle").ci_high


# -- probability-based (log-likelihood) --


def prob_strict_vle(items: list) -> float:
    """StrictVLE from e(V,C): e(C+) > 0.5 and e(C-) < 0.5, mean of the 7 tests."""
    return _score(items, "prob_strict_vle").value


def prob_classic_vle(items: list) -> float:
    """ClassicVLE from e(V,C): e(C+) > e(C-), mean of the 7 tests."""
    return _score(items, "prob_classic_vle").value


def prob_strict_vle_test(items: list) -> float:
    """Probability StrictVLE of one test's pairs."""
    return _score(items, "prob_strict_vle", per_test=True).value


def prob_classic_vle_test(items: list) -> float:
    """Probability ClassicVLE of one test's pairs."""
    return _score(items, "prob_classic_vle", per_test=True).value


def prob_invalid_rate(items: list) -> float:
    """Percent of questions whose e(V,C) is undefined or exactly 0.5 (neither Yes nor No wins)."""
    return question_rate(items, "invalid", NAME)


def prob_strict_vle_ci_low(items: list) -> float:
    """Probability StrictVLE average: 95% CI low."""
    return _score(items, "prob_strict_vle").ci_low


def prob_strict_vle_ci_high(items: list) -> float:
    """Probability StrictVLE average: 95% CI high."""
    return _score(items, "prob_strict_vle").ci_high


def prob_classic_vle_ci_low(items: list) -> float:
    """ClassicVLE average: 95% CI low."""
    return _score(items, "prob_classic_vle").ci_low


def prob_classic_vle_ci_high(items: list) -> float:
    """ClassicVLE average: 95% CI high."""
    return _score(items, "prob_classic_vle").ci_high


# -- multiple choice --


def mc_a(items: list) -> float:
    """MC accuracy with C+ as option A, mean of the 7 tests."""
    return _score(items, "mc_a").value


def mc_b(items: list) -> float:
    """MC accuracy with C+ as option B, mean of the 7 tests."""
    return _score(items, "mc_b").value


def mc_bias(items: list) -> float:
    """Order bias B - A of the averages (= the mean of the per-test biases; about 0 for an order-blind model)."""
    return mc_b(items) - mc_a(items)


def mc_both(items: list) -> float:
    """Rows right in both orders, mean of the 7 tests."""
    return _score(items, "mc_both").value


def mc_a_test(items: list) -> float:
    """MC A accuracy of one test."""
    return _score(items, "mc_a", per_test=True).value


def mc_b_test(items: list) -> float:
    """MC B accuracy of one test."""
    return _score(items, "mc_b", per_test=True).value


def mc_bias_test(items: list) -> float:
    """MC bias (B - A) of one test."""
    return mc_b_test(items) - mc_a_test(items)


def mc_both_test(items: list) -> float:
    """MC both-orders accuracy of one test."""
    return _score(items, "mc_both", per_test=True).value


def mc_both_ci_low(items: list) -> float:
    """MC both-orders average: 95% CI low."""
    return _score(items, "mc_both").ci_low


def mc_both_ci_high(items: list) -> float:
    """MC both-orders average: 95% CI high."""
    return _score(items, "mc_both").ci_high


def _outcomes(name: str, per_test: bool) -> Callable[[list], GroupOutcomes]:
    def outcomes(items: list) -> GroupOutcomes:
        metric = METRICS[name]
        if per_test:
            metric = replace(metric, exclude_strata=(), expect_strata=0, one_stratum=True)
        return group_outcomes(items, metric, label=LABELS[name])

    return outcomes


# The metrics as functions over rows (``temporal-tasks compare``), keyed by aggregation name: the very
# Metric specs of the values and CIs. The per-test keys hold one test's rows. mc_bias (a difference of two
# averages) has none.
GROUP_OUTCOMES: dict[str, Callable[[list], GroupOutcomes]] = {
    **{name: _outcomes(name, False) for name in METRICS},
    **{f"{name}_test": _outcomes(name, True) for name in METRICS},
}


# --repeats k (k > 1): <metric>_consensus_accuracy, _consistency_rate, _repeat_sd of every generate-task group metric.
_GROUP_METRICS = ("strict_vle", "strict_vle_test", "mc_a", "mc_b", "mc_both", "mc_a_test", "mc_b_test", "mc_both_test")
# Named one by one in the generated ``aggregations`` module the YAML references.
AGGREGATIONS = stability_aggregations(globals(), _GROUP_METRICS)

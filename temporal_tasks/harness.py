"""lmms-eval hooks shared by every task: visuals, prompts, targets and per-question payloads.

Every benchmark loader produces docs with the same core fields:
``question_id, group_id, role, group_size, prompt, gold, parser, options, videos, categories``
(``options``: the question's options as ``{"label", "text", "names"}`` dicts, for the robust parser).
"""

from __future__ import annotations

import contextlib
import contextvars
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from temporal_tasks.compat import aggregating_task, building_task_config, config_entries_env, task_config_name
from temporal_tasks.data import collect_sources
from temporal_tasks.errors import DataError, exit_run
from temporal_tasks.log import first_time, logger, warn_once
from temporal_tasks.parsing import get_parser, option_keys, parser_mode, truncated_thinking
from temporal_tasks.provenance import attach
from temporal_tasks.run_context import run_context
from temporal_tasks.run_state import STATE, lock
from temporal_tasks.scoring import STABILITY, percent, question_rate, slug

# What lmms-eval's API models (openai, …) return as the answer text when a request failed after every retry, or
# when the usage budget ran out: scored as unreadable (wrong), so a run with them must say so loudly.
API_FAILURE_MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")


def _api_failed(doc: dict, answer: str) -> None:
    """Warn at the 1st, 10th, 100th, … failed API answer of this evaluation (counts, without flooding the log)."""
    with lock():
        STATE.api_failures += 1
        n = STATE.api_failures
    if n == 1 or str(n).strip("0") == "1":
        logger.warning(
            f"{n} question(s) so far (e.g. {doc['question_id']}) got {answer.split(']')[0]}] from lmms-eval instead of "
            "an answer: the API request failed and is scored as an unreadable, wrong answer. Grep the samples for "
            "LMMS_EVAL_ to count them; fix the endpoint and rerun before reporting these numbers."
        )


DOC_FIELDS = (
    "question_id", "group_id", "role", "group_size", "prompt", "gold", "parser", "options", "videos", "categories",
)  # fmt: skip


def doc_to_visual(doc: dict) -> list[str]:
    """The doc's video paths, as a list (never a bare string: chat models would split it)."""
    return list(doc["videos"])


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """The benchmark's prompt, verbatim, with optional ``pre_prompt``/``post_prompt`` kwargs around it."""
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"


def doc_to_target(doc: dict) -> str:
    """The gold label."""
    return doc["gold"]


class AllAnswers:
    """lmms-eval filter of our generate tasks: hands every ``--repeats`` answer to ``process_results``.

    lmms-eval's default (``take_first``) keeps only the first of the k answers a question got. With one
    answer this returns exactly what ``take_first`` does (the string), so single runs are unchanged; with
    k > 1, the list of the k answers.
    """

    def __init__(self, **kwargs: Any) -> None:
        pass

    def apply(self, resps: Iterable[Sequence[Any]], docs: Any) -> list:  # noqa: ARG002 - lmms-eval's interface
        """Per instance: its one answer as ``take_first`` gives it, or the list of its k answers."""
        return [list(r) if len(r) > 1 else (r[0] if r else "") for r in map(list, resps)]


class FirstOfRepeats:
    """lmms-eval filter of our log-likelihood tasks: their k identical requests score once (logged once)."""

    def __init__(self, **kwargs: Any) -> None:
        pass

    def apply(self, resps: Iterable[Sequence[Any]], docs: Any) -> list:  # noqa: ARG002 - lmms-eval's interface
        """``take_first``, with one log line when the requests were repeated."""
        resps = [list(r) for r in resps]
        k = max(map(len, resps), default=1)
        if k > 1:
            warn_once(
                f"--repeats {k}: a log-likelihood task has one deterministic score per question, so repeats do not "
                "apply to it; each question is scored once (the repeated requests were identical)."
            )
        return [r[0] if r else "" for r in resps]


def answers(results: Sequence[Any] | None) -> str | list[str]:
    """The answer(s) lmms-eval handed ``process_results``: one string, or the k answers of ``--repeats k``.

    Our filter (:class:`AllAnswers`) gives a generate request the list of its k answers for k > 1, which
    lmms-eval's ``process_results`` flattens to ``[a1, …, ak]`` (one request per question); ``[a]`` otherwise.
    """
    if results and isinstance(results[0], list | tuple):
        results = results[0]
    given = ["" if a is None else str(a) for a in (results or ())]
    return given if len(given) > 1 else first_answer(given)


def reading(doc: dict, answer: str, mode: str, keys: Any) -> dict:
    """One answer's readings: robust, official, the mode's ``pred``, ``correct``, ``truncated``, errors."""
    if answer.startswith(API_FAILURE_MARKERS):
        _api_failed(doc, answer)
    robust, official, errors = get_parser(doc["parser"]).read_all(answer, keys)
    pred = official if mode == "official" else robust
    return {
        "pred": pred,
        "pred_robust": robust,
        "pred_official": official,
        "correct": pred is not None and pred == doc["gold"],
        "truncated": truncated_thinking(answer),
        "parser_errors": errors,
    }


def make_payload(doc: dict, answer: Any) -> dict:
    """The per-question record every aggregation and ``rescore`` works from.

    It keeps both readings of the answer (``pred_robust``, ``pred_official``; ``pred`` is the one
    of the mode in force), the options in the compact form ``rescore`` re-reads them with, whether the
    answer was cut off inside its reasoning (``truncated``) and how many parser exceptions reading it
    raised (``parser_errors``: a bug in this package, never the model's fault).

    ``answer`` a list of k > 1 answers (``--repeats k``): the top-level fields are repeat 0's (so readers
    of one answer keep working) and ``repeats`` holds every repeat's readings; the answer texts are not
    copied (lmms-eval's ``resps`` keep them).
    """
    if isinstance(answer, list | tuple) and len(answer) > 1:
        texts = ["" if a is None else str(a) for a in answer]
        mode = parser_mode()
        keys = option_keys(doc.get("options"))
        payload = make_payload(doc, texts[0])
        payload["repeats"] = [payloadreading(payload)] + [reading(doc, a, mode, keys) for a in texts[1:]]
        payload["parser_errors"] = sum(rep["parser_errors"] for rep in payload["repeats"])
        return payload
    if isinstance(answer, list | tuple):
        answer = answer[0] if answer else ""
    answer = "" if answer is None else str(answer)
    mode = parser_mode()
    keys = option_keys(doc.get("options"))
    return {
        "question_id": doc["question_id"],
        "group_id": doc["group_id"],
        "role": doc["role"],
        "group_size": int(doc["group_size"]),
        "categories": list(doc.get("categories") or []),
        "answer": answer,
        "gold": doc["gold"],
        "parser": doc["parser"],
        "parser_mode": mode,
        "option_keys": keys,
        **reading(doc, answer, mode, keys),
    }


READING_FIELDS = ("pred", "pred_robust", "pred_official", "correct", "truncated", "parser_errors")


def payloadreading(payload: dict) -> dict:
    """The reading fields of a one-answer payload (one entry of ``repeats``)."""
    return {k: payload[k] for k in READING_FIELDS}


# Aggregations that are not a group metric: they get no stability keys under --repeats.
NOT_GROUP_METRICS = ("invalid_rate", "parse_disagreement", "truncated_rate", "caption_sim", "mc_bias")


def is_group_metric(name: str) -> bool:
    """Whether metric key (or aggregation function) ``name`` is a group metric with ``--repeats`` stability keys."""
    base = name.removeprefix("prob_")
    return not (
        base.endswith(("_ci_low", "_ci_high")) or any(base == n or base.startswith(f"{n}_") for n in NOT_GROUP_METRICS)
    )


def with_repeat_keys(keys: Iterable[str], payload: dict) -> list[str]:
    """``keys`` plus ``<key>_<suffix>`` of every stability suffix for each group-metric key, only when the
    payload holds k > 1 repeats (one answer per question adds no key: the run's keys stay as they were)."""
    keys = list(keys)
    if not payload.get("repeats"):
        return keys

    return keys + [f"{key}_{suffix}" for key in keys if is_group_metric(key) for suffix in STABILITY]


def parse_disagreement(items: list) -> float:
    """lmms-eval aggregation of every generate task: percent of scored answers (complete groups) whose
    robust and official readings differ. The same in both parser modes."""
    return question_rate(items, "disagree", "parse_disagreement")


TRUNCATED_WARN_PERCENT = 5.0


def truncated_rate(items: list) -> float:
    """lmms-eval aggregation of every generate task: percent of scored answers (complete groups) cut off inside
    their reasoning (an opened ``<think>`` never closed: ``max_new_tokens`` ran out). Such answers are unreadable,
    so they are part of ``invalid_rate`` too. Above 5% it warns once per task with the flag to raise; it also
    reports parser exceptions (bugs in this package), which are counted apart from unreadable answers."""
    if items and "pred" not in items[0]:  # free-text answers (captions): groups of one, nothing parsed
        unique = {p["question_id"]: bool(p.get("truncated")) for p in items}
        value = percent(sum(unique.values()), len(unique))
    else:
        value = question_rate(items, "truncated", "truncated_rate")

    task, max_new_tokens = aggregating_task()
    if value == value and value > TRUNCATED_WARN_PERCENT and first_time(f"truncated_rate:{task}"):
        now = f" (now {max_new_tokens})" if max_new_tokens else ""
        logger.warning(
            f"{task}: {value:.1f}% of the scored answers were cut off inside <think> before any final answer, so "
            f"they count as unreadable and wrong. The model is still thinking when max_new_tokens runs out{now}: "
            f"rerun with --gen_kwargs max_new_tokens=4096 (or more) for a thinking model."
        )
    errors = sum(filter(None, map(operator.methodcaller("get", "parser_errors", 0), items)))
    if errors:
        logger.warning(
            f"{task}: {errors} reading(s) of answers raised inside the temporal-tasks parser and were counted as "
            "unreadable. That is a bug in temporal-tasks, not the model's fault: report it with the first traceback "
            "in this log."
        )
    return value


def first_answer(results: Sequence[Any] | None) -> str:
    """lmms-eval passes a list of (stripped) generations; empty or missing means an empty answer.
    (The k answers of ``--repeats k``, as one list, give their first.)"""
    if not results:
        return ""
    first = results[0]
    if isinstance(first, list | tuple):
        first = first[0] if first else None
    return "" if first is None else str(first)


# The metric key whose sample-file entry holds the question's whole payload (less the answer text, which
# lmms-eval already logs as ``filtered_resps``); every other key of the line holds ``{"same_as": <that key>}``.
PRIMARY_KEYS = ("invalid_rate",)
SAME_AS = "same_as"


class SharedPayload(dict):
    """The payload every non-primary metric key of a question receives: one object shared by those keys.

    In the process it is the full payload (aggregations read it like a dict, and sharing one object lets
    a metric's value and CI keys share one computation). In JSON it is ``{"same_as": <primary key>}``, so
    the samples file carries the payload once per question instead of once per metric key (6 to 20 times);
    ``json`` serialises a dict subclass through ``items()``. Pickling (lmms-eval gathers ranks with it)
    keeps the full contents. Read it with ``p[key]``, ``p.get``, ``dict(p)`` or ``{**p}``: ``p.items()`` is
    the JSON view.
    """

    __slots__ = ("primary",)

    def __init__(self, payload: dict, primary: str) -> None:
        super().__init__(payload)
        self.primary = primary

    def items(self):  # noqa: ANN201 - what json.dumps sees
        return {SAME_AS: self.primary}.items()

    def __reduce__(self):  # noqa: ANN204
        return (SharedPayload, (dict(self), self.primary))


class PrimaryPayload(dict):
    """The primary key's copy of a payload (no answer): written in full; ``twin`` is the shared object of the
    other keys, so scoring treats a list of these as that list (one table for every key of a question)."""

    __slots__ = ("twin",)

    def __init__(self, payload: dict, twin: dict) -> None:
        super().__init__(payload)
        self.twin = twin

    def __reduce__(self):  # noqa: ANN204
        return (PrimaryPayload, (dict(self), self.twin))


def share(payload: dict, keys: Iterable[str]) -> dict[str, dict]:
    """``{key: payload}`` for each metric key, lean in the samples file (see :class:`SharedPayload`).

    The primary key (``invalid_rate`` where the task has it, else the first key) gets the payload without
    the raw answer; ``temporal_tasks.samples`` puts the answer back from the line's ``filtered_resps``.
    """
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    primary = next((k for k in PRIMARY_KEYS if k in keys), keys[0])
    ref = SharedPayload(payload, primary)
    out: dict[str, dict] = {primary: PrimaryPayload({k: v for k, v in payload.items() if k != "answer"}, ref)}
    out.update((key, ref) for key in keys if key != primary)
    return out


def results_for(payload: dict, headline: Iterable[str], per_category: Iterable[str] = ()) -> dict[str, dict]:
    """Map each metric key this question feeds to its payload (categories as ``<metric>_<category>``)."""
    keys = list(headline)
    cats = [slug(c) for c in payload["categories"]]
    for metric in per_category:
        keys.extend(f"{metric}_{cat}" for cat in cats)
    return share(payload, with_repeat_keys(keys, payload))


def check_zero_shot() -> None:
    """Stop with a clear error when the run asks for few-shot examples (``--num_fewshot`` above 0)."""
    shots = run_context().num_fewshot
    if shots is not None and shots > 0:
        exit_run(
            DataError(
                f"--num_fewshot {shots}: these temporal-reasoning tasks are zero-shot (each benchmark scores the "
                "model on its own question, as the papers do, and has no few-shot split). Drop --num_fewshot or "
                "pass --num_fewshot 0."
            )
        )


def check_config_env() -> None:
    """Stop when the entries of a multi-entry ``--config`` file set our ``TEMPORAL_TASKS_*`` variables differently.

    lmms-eval exports every entry's ``env:`` before the first entry runs, so each entry would run with the
    last value (e.g. an entry asking for ``TEMPORAL_TASKS_PARSER: official`` scored ``robust``).
    """
    entries = config_entries_env()
    if not entries:
        return
    ours = sorted({k for e in entries for k in e if k.startswith("TEMPORAL_TASKS_")})
    differ = [k for k in ours if len({e.get(k) for e in entries}) > 1]
    if differ:
        values = "; ".join(f"{k}: " + ", ".join(f"entry {i + 1}={e.get(k, '(unset)')}" for i, e in enumerate(entries))
                           for k in differ)  # fmt: skip
        exit_run(
            DataError(
                f"--config: the entries set {', '.join(differ)} differently ({values}), but lmms-eval exports every "
                "entry's env before the first run, so all entries would run with the last value. Put per-entry "
                "settings in each entry's model_args (e.g. max_num_frames=8) or task names (e.g. a task's "
                "_official variant), or run one --config file per setting (README: lmms-eval flags)."
            )
        )


# Inside docs_only(): process_docs returns the docs themselves and starts no video builds (rescore, shortcuts).
# The value is the name of the task whose docs are wanted ("" when the caller does not say).
_DOCS_ONLY: contextvars.ContextVar[str | None] = contextvars.ContextVar("temporal_tasks_docs_only", default=None)


@contextlib.contextmanager
def docs_only(task: str = "") -> Iterator[None]:
    """Inside this block a task's ``process_docs`` returns its docs as a list and starts no background builds.

    So shared code gets any task's docs from its config's ``process_docs`` alone, with no table of loaders:
    ``predict_only`` rescoring and the shortcut variants (which copy their main task's docs) use :func:`task_docs`.
    """
    token = _DOCS_ONLY.set(task)
    try:
        yield
    finally:
        _DOCS_ONLY.reset(token)


def builds_allowed() -> bool:
    """False inside :func:`docs_only`: loaders must not start (or defer) video builds."""
    return _DOCS_ONLY.get() is None


def task_docs(process_docs: Callable[[Any], Any], task: str = "") -> list[dict]:
    """The docs a task's ``process_docs`` function yields, without builds, provenance or run checks."""
    with docs_only(task):
        return list(process_docs(None))


def building_task_name() -> str:
    """The task whose ``process_docs`` runs now: :func:`task_docs`'s, else lmms-eval's task being built ("")."""
    named = _DOCS_ONLY.get()
    if named:
        return named

    config = building_task_config()
    return task_config_name(config) if config is not None else ""


def docs_dataset(load: Callable[[], list[dict]]):
    """Build the ``datasets.Dataset`` of a task from a validating loader, for ``process_docs``.

    A data problem ends the process with its message and exit status 1 (see ``data.stop``), and so
    does ``--num_fewshot`` above 0 (these benchmarks are zero-shot; lmms-eval would crash later). The
    docs' provenance record is stored in the running task's ``metadata`` (:mod:`temporal_tasks.provenance`).
    """
    if not builds_allowed():  # docs_only(): the docs alone (DataError propagates to the caller)
        return load()
    import datasets

    check_zero_shot()
    check_config_env()

    try:
        with collect_sources() as sources:
            docs = load()
        # The run's provenance goes into the task config's metadata: the results JSON and the response-cache
        # key (--use_cache) both include it, so changed videos, N or seed never reuse a cached answer.
        attach(docs, sources)
    except DataError as exc:
        exit_run(exc)
    return datasets.Dataset.from_list(docs)

"""The per-question payload: every aggregation, ``rescore`` and ``export`` works from it.

:func:`make_payload` reads an answer (both readings, truncation, parser errors; the k readings of ``--repeats k``)
and :func:`results_for` hands it to every metric key the question feeds (its metric list's
:meth:`~temporal_tasks.api.spec.MetricList.keys`), lean in the samples file (the payload once per question, the
other keys ``{"same_as": <key>}``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from temporal_tasks.answers.answer_text import truncated_thinking
from temporal_tasks.answers.options import option_keys
from temporal_tasks.answers.parsing import get_parser
from temporal_tasks.api.spec import MetricList, slug
from temporal_tasks.base.log import logger
from temporal_tasks.base.run_state import STATE, lock
from temporal_tasks.base.settings import answer_reading

# The answer text of a question that has no answer at all: what the replay model answers a question its responses
# file has no line for (an official answer file missing that line). Read as an empty answer, and flagged
# ``answer_missing``: an official scorer may treat a missing line otherwise (Metric.official_missing).
NO_ANSWER = "[temporal-tasks: no answer]"

# What lmms-eval's API models (openai, …) return as the answer text when a request failed after every retry, or
# when the usage budget ran out: scored as unreadable (wrong), so a run with them must say so loudly.
API_FAILURE_MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")


def _api_failed(doc: Mapping[str, Any], answer: str) -> None:
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


def answers(results: Sequence[Any] | None) -> str | list[str]:
    """The answer(s) lmms-eval handed ``process_results``: one string, or the k answers of ``--repeats k`` (our
    filter, ``AllAnswers``, hands them as one list, which lmms-eval flattens to ``[a1, …, ak]``)."""
    if results and isinstance(results[0], list | tuple):
        results = results[0]
    given = ["" if a is None else str(a) for a in (results or ())]
    if not given:
        return NO_ANSWER  # no answer handed at all, not an empty one
    return given if len(given) > 1 else given[0]


def read_answer(doc: Mapping[str, Any], answer: str, mode: str, keys: Any) -> dict:
    """One answer's readings: robust, official, the mode's ``pred``, ``correct``, ``truncated``, errors, and whether
    the answer is empty (``answer_empty``: an official scorer that reads ``response[0]`` raises on it; see
    :attr:`~temporal_tasks.api.spec.Metric.official_read_first`). :data:`NO_ANSWER` is read as an empty answer and
    adds ``answer_missing`` (:attr:`~temporal_tasks.api.spec.Metric.official_missing`)."""
    missing = answer == NO_ANSWER
    if missing:
        answer = ""
    elif answer.startswith(API_FAILURE_MARKERS):
        _api_failed(doc, answer)
    robust, official, errors = get_parser(doc["parser"]).read_all(answer, keys)
    pred = official if mode == "official" else robust
    reading = {
        "pred": pred,
        "pred_robust": robust,
        "pred_official": official,
        "correct": pred is not None and pred == doc["gold"],
        "truncated": truncated_thinking(answer),
        "answer_empty": answer == "",
        "parser_errors": errors,
    }
    if missing:  # only then: the samples files of answered questions stay as they were
        reading["answer_missing"] = True
    return reading


def question_fields(doc: Mapping[str, Any]) -> dict:
    """What every payload says of its question: id, group, role, group size, categories."""
    return {"question_id": doc["question_id"], "group_id": doc["group_id"], "role": doc["role"],
            "group_size": int(doc["group_size"]), "categories": list(doc.get("categories") or [])}  # fmt: skip


def make_payload(doc: Mapping[str, Any], answer: Any) -> dict:
    """The per-question record every aggregation and ``rescore`` works from.

    It keeps both readings of the answer (``pred_robust``, ``pred_official``; ``pred`` is the one of the mode in
    force), the options in the compact form ``rescore`` re-reads them with, whether the answer was cut off inside
    its reasoning (``truncated``) and how many parser exceptions reading it raised (``parser_errors``: a bug in
    this package, never the model's fault). ``answer`` a list of k > 1 answers (``--repeats k``): the top-level
    fields are repeat 0's and ``repeats`` holds every repeat's readings (the texts stay lmms-eval's ``resps``).
    """
    texts = list(answer) if isinstance(answer, list | tuple) else [answer]
    texts = ["" if a is None else str(a) for a in texts] or [""]
    mode, keys = answer_reading(), option_keys(doc.get("options"))
    readings = [read_answer(doc, text, mode, keys) for text in texts]
    payload = {
        **question_fields(doc),
        "answer": texts[0],
        "gold": doc["gold"],
        "parser": doc["parser"],
        "parser_mode": mode,
        "option_keys": keys,
        **readings[0],
    }
    if len(readings) > 1:
        payload["repeats"] = readings
        payload["parser_errors"] = sum(r["parser_errors"] for r in readings)
    return payload


def first_answer(results: Sequence[Any] | None) -> str:
    """lmms-eval passes a list of (stripped) generations; empty or missing means an empty answer, and so does
    :data:`NO_ANSWER` (for a metric without an official missing-line rule, e.g. caption similarity).
    (The k answers of ``--repeats k``, as one list, give their first.)"""
    if not results:
        return ""
    first = results[0]
    if isinstance(first, list | tuple):
        first = first[0] if first else None
    return "" if first is None or first == NO_ANSWER else str(first)


# The metric key whose sample-file entry holds the question's whole payload (less the answer text, which
# lmms-eval already logs as ``filtered_resps``); every other key of the line holds ``{"same_as": <that key>}``.
PRIMARY_KEYS = ("invalid_rate",)
SAME_AS = "same_as"


class SharedPayload(dict):
    """The payload every non-primary metric key of a question receives: one object shared by those keys.

    In the process it is the full payload (aggregations read it like a dict). In JSON it is
    ``{"same_as": <primary key>}``, so the samples file carries the payload once per question instead of once per
    metric key (6 to 20 times); ``json`` serialises a dict subclass through ``items()``. Pickling (lmms-eval gathers
    ranks with it) keeps the full contents. Read it with ``p[key]``, ``p.get``, ``dict(p)`` or ``{**p}``:
    ``p.items()`` is the JSON view.
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
    """The primary key's payload: the full payload in the process (equal to the other keys' :class:`SharedPayload`,
    so every key's list is the same list of payloads), written without the raw answer (lmms-eval writes that as
    the line's ``filtered_resps``)."""

    __slots__ = ()

    def items(self):  # noqa: ANN201 - what json.dumps sees
        return {k: v for k, v in dict.items(self) if k != "answer"}.items()

    def __reduce__(self):  # noqa: ANN204
        return (PrimaryPayload, (dict(self),))


def share(payload: dict, keys: Iterable[str]) -> dict[str, dict]:
    """``{key: payload}`` for each metric key, lean in the samples file: the primary key (``invalid_rate`` where the
    task has it, else the first key) holds the payload once (:class:`PrimaryPayload`), every other key a reference
    to it (:class:`SharedPayload`); ``temporal_tasks.tools.samples`` puts the answer back from ``filtered_resps``."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return {}
    primary = next((k for k in PRIMARY_KEYS if k in keys), keys[0])
    ref = SharedPayload(payload, primary)
    out: dict[str, dict] = {primary: PrimaryPayload(payload)}
    out.update((key, ref) for key in keys if key != primary)
    return out


def results_for(payload: dict, metric_list: MetricList, categories: Iterable[str] = ()) -> dict[str, dict]:
    """Map each metric key this question feeds to its payload: the list's keys for ``categories`` (names, slugged
    here) and, when the payload holds k > 1 answers, their ``--repeats`` stability keys."""
    keys = metric_list.keys([slug(str(c)) for c in categories], repeats=bool(payload.get("repeats")))
    return share(payload, keys)

"""VELOCITI: the official rules (closed-model Yes/No, ``mcq``, ``metrics.py``) transcribed from the spec, answer sets
and log-probabilities with their numbers by hand, and the replay file of them."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader

TESTS7 = ("agent_random", "agent_bind", "coref", "action_adv", "action_manner", "action_bind", "chrono")


TEST_OF_ROW = [t for t, *_ in fixture.ROWS]  # fixture row -> test_name (2 rows per test)

# ----------------------------------------------------------------------------- official oracles
# Independent transcriptions of github katha-ai/VELOCITI (HEAD 8d66ddbb) ``gemini/eval.py`` (``call_model``'s Yes/No
# reading), ``gemini/closed_model_metrics.py`` (``strict_vle_closed``) and ``metrics.py`` (``mcq``, ``strict_vle``,
# ``classic_vle``), written from the official code, not from our module. Neither script catches anything: an
# exception stops it. Their ``round(x, 3)`` of fractions is presentation; these return unrounded percentages.


def oracle_closed_yes_no(raw: str) -> str:
    """``gemini/eval.py`` ``call_model``: 'Yes' if 'Yes' in the text and 'No' not (case-sensitive substrings), 'No'
    the other way round, else 'error' (an empty answer is 'error')."""
    if "Yes" in raw and "No" not in raw:
        return "Yes"
    if "No" in raw and "Yes" not in raw:
        return "No"
    return "error"


def oracle_strict_closed(answers: dict[str, str], rows: list[int]) -> dict[str, float]:
    """``strict_vle_closed`` per test: right iff pos 'Yes' and neg 'No'; a pair counts only when both read Yes/No (a
    missing answer is a missing CSV cell, NaN: not Yes/No). A test with no pair counted divides by zero there
    (no number); it is left out here."""
    right, total = defaultdict(int), defaultdict(int)
    for r in rows:
        pos = oracle_closed_yes_no(answers.get(f"{r}_pos", ""))
        neg = oracle_closed_yes_no(answers.get(f"{r}_neg", ""))
        if pos == "Yes" and neg == "No":
            right[TEST_OF_ROW[r]] += 1
            total[TEST_OF_ROW[r]] += 1
        elif pos in ("Yes", "No") and neg in ("Yes", "No"):
            total[TEST_OF_ROW[r]] += 1
    return {t: 100 * right[t] / total[t] for t in total}


def official_mcq(ans_a: list, ans_b: list) -> tuple[float, float, float, int]:
    """``metrics.py::mcq(gt_A, gt_B)``: ``ans.split()[0]`` of each, outside any ``try`` (an empty or blank answer
    raises IndexError, a NaN cell AttributeError: the script stops); a row counts when both are exactly 'A' or
    'B'. Returns (acc_A, acc_B, acc_both) in percent and the rows counted."""
    cnt_a, cnt_b, cnt_ab, tot = 0, 0, 0, 0
    for i in range(len(ans_a)):
        a_i, b_i = ans_a[i].split()[0], ans_b[i].split()[0]
        if (a_i == "A" or a_i == "B") and (b_i == "A" or b_i == "B"):
            tot += 1
            if a_i == "A" and b_i == "B":
                cnt_a += 1
                cnt_b += 1
                cnt_ab += 1
            elif a_i == "A":
                cnt_a += 1
            elif b_i == "B":
                cnt_b += 1
    return 100 * cnt_a / tot, 100 * cnt_b / tot, 100 * cnt_ab / tot, tot


EXPORT_UNREADABLE = "[unreadable]"  # what our export writes for an answer metrics.py cannot split


def oracle_mcq(answers: dict[str, str], rows: list[int]) -> dict[str, dict[str, float]]:
    """:func:`official_mcq` per test on the cells our export writes: an answer with no whitespace token (empty,
    blank, missing), which stops the script raw, is a non-A/B placeholder, so its row is not counted."""
    by_test: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for r in rows:
        for column, role in zip(by_test[TEST_OF_ROW[r]], ("posA", "posB"), strict=True):
            raw = answers.get(f"{r}_mc_{role}", "")
            column.append(raw if raw.split() else EXPORT_UNREADABLE)
    out = {}
    for t, (ans_a, ans_b) in by_test.items():
        if any(a.split()[0] in ("A", "B") and b.split()[0] in ("A", "B") for a, b in zip(ans_a, ans_b, strict=True)):
            a, b, both, _tot = official_mcq(ans_a, ans_b)
            out[t] = {"mc_a": a, "mc_b": b, "mc_both": both}
    return out


def oracle_metrics_py(logps: dict[str, dict[str, float]], rows: list[int]) -> dict[str, dict[str, float]]:
    """``metrics.py`` ``strict_vle`` / ``classic_vle`` on e = P(Yes)/(P(Yes)+P(No)) computed the official way
    (``vidllm_eval.py`` softmax probabilities); an undefined e is NaN, which fails every comparison (wrong,
    still counted)."""

    def e(qid: str) -> float:
        table = logps.get(qid, {})
        py = math.exp(table["Yes"]) if "Yes" in table else 0.0
        pn = math.exp(table["No"]) if "No" in table else 0.0
        return py / (py + pn) if py + pn else math.nan

    strict, classic, n = defaultdict(int), defaultdict(int), defaultdict(int)
    for r in rows:
        pos, neg, t = e(f"{r}_pos"), e(f"{r}_neg"), TEST_OF_ROW[r]
        n[t] += 1
        strict[t] += pos > 0.5 and neg < 0.5
        classic[t] += pos > neg
    return {t: {"strict_vle": 100 * strict[t] / n[t], "classic_vle": 100 * classic[t] / n[t]} for t in n}


def mean7(per_test: dict[str, float]) -> float:
    """The mean over the seven tests (control left out), of those given."""
    vals = [per_test[t] for t in TESTS7 if t in per_test]
    return sum(vals) / len(vals)


# ----------------------------------------------------------------------------- answer patterns
# Fixture rows: 0 control, 1 agent_random, 2 agent_bind, 3 coref, 4 action_adv, 5 action_manner,
# 6 action_bind, 7 chrono, then 8..15 the same tests again. Subset = rows 0..7.

STRICT_ANSWERS = {
    "0_pos": "Yes", "0_neg": "No",  # control: right
    "8_pos": "Yes", "8_neg": "Yes",  # control: wrong
    "1_pos": "Yes.", "1_neg": "No.",  # agent_random: right
    "9_pos": "Yes",  # 9_neg missing -> empty: robust wrong, official dropped
    "2_pos": "yes", "2_neg": "no",  # robust right; official: lowercase has no 'Yes'/'No' -> dropped
    "10_pos": "No", "10_neg": "No",  # wrong
    "3_pos": "Yes, I think so", "3_neg": "Nothing like that happens",  # robust: neg unreadable; official 'No' -> right
    "11_pos": "Yes", "11_neg": "No",  # right
    "4_pos": "Yes", "4_neg": "No, it does not jump. Yesterday it did.",  # robust right; 'Yes'terday: official drops
    "12_pos": "**Yes**", "12_neg": "No",  # right in both
    "5_pos": "Yes", "5_neg": "No",  # right
    "13_pos": "Yes", "13_neg": "Nope",  # robust: 'Nope' unreadable -> wrong; official: contains 'No' -> right
    "6_pos": "Sure, yes.", "6_neg": "No",  # robust right (unique yes); official: no 'Yes' -> dropped
    "14_pos": "No", "14_neg": "No",  # wrong
    "7_pos": "<think>No idea</think>Yes", "7_neg": "No",  # robust right; official sees 'No' and 'Yes' -> dropped
    "15_pos": "Yes", "15_neg": "No",  # right
}  # fmt: skip


# Robust by hand (per test, 2 rows each): control 1/2, agent_random 1/2, agent_bind 1/2, coref 1/2,
# action_adv 2/2, action_manner 1/2, action_bind 1/2, chrono 2/2; avg of 7 = (50*5+100*2)/7 = 450/7.
STRICT_ROBUST = {
    "control": 50.0, "agent_random": 50.0, "agent_bind": 50.0, "coref": 50.0,
    "action_adv": 100.0, "action_manner": 50.0, "action_bind": 50.0, "chrono": 100.0,
}  # fmt: skip


# Official by hand: kept pairs control 0,8 -> 1/2; agent_random 1 -> 1/1; agent_bind 10 -> 0/1; coref 3,11 -> 2/2;
# action_adv 12 -> 1/1; action_manner 5,13 -> 2/2; action_bind 14 -> 0/1; chrono 15 -> 1/1; avg = 500/7.
STRICT_OFFICIAL = {
    "control": 50.0, "agent_random": 100.0, "agent_bind": 0.0, "coref": 100.0,
    "action_adv": 100.0, "action_manner": 100.0, "action_bind": 0.0, "chrono": 100.0,
}  # fmt: skip


# Unreadable answers, robust: 9_neg, 3_neg, 13_neg = 3/32; official: 9_neg, 2_pos, 2_neg, 4_neg, 6_pos, 7_pos = 6/32.
INVALID = {"robust": 100 * 3 / 32, "official": 100 * 6 / 32}


# Subset (rows 0..7). Robust: all right but coref (row 3) -> 6 tests at 100, coref 0 -> avg 600/7.
# Official: rows 2, 4, 6, 7 dropped -> agent_bind, action_adv, action_bind, chrono have nothing (NaN);
# the average is over the 3 tests left (agent_random, coref, action_manner), all 100.
SUBSET_ROBUST = dict.fromkeys(velociti_loader.TESTS, 100.0) | {"coref": 0.0}


SUBSET_OFFICIAL = {"control": 100.0, "agent_random": 100.0, "coref": 100.0, "action_manner": 100.0}


MC_ANSWERS = {
    "0_mc_posA": "A", "0_mc_posB": "B",  # control: both right
    "8_mc_posA": "A", "8_mc_posB": "A",  # control: A right, B wrong
    "1_mc_posA": "A", "1_mc_posB": "B",  # agent_random: right
    "9_mc_posA": "B", "9_mc_posB": "(B)",  # robust: A wrong, B right; official: '(B)' invalid -> dropped
    "2_mc_posA": "A", "2_mc_posB": "A",  # agent_bind: A right, B wrong (x2)
    "10_mc_posA": "A", "10_mc_posB": "A",
    "3_mc_posA": "B", "3_mc_posB": "B",  # coref: A wrong, B right
    "11_mc_posA": "A", "11_mc_posB": "B",  # right
    "4_mc_posA": "A is correct", "4_mc_posB": "B",  # right in both modes (first token 'A')
    "12_mc_posA": "", "12_mc_posB": "B",  # robust: A wrong (empty); official: dropped
    "5_mc_posA": "a", "5_mc_posB": "b",  # robust right; official: lowercase -> dropped
    "13_mc_posA": "B", "13_mc_posB": "A",  # both wrong
    "6_mc_posA": "A", "6_mc_posB": "B",  # action_bind: right (x2)
    "14_mc_posA": "A", "14_mc_posB": "B",
    "7_mc_posA": "B", "7_mc_posB": "B",  # chrono: A wrong, B right (x2)
    "15_mc_posA": "B", "15_mc_posB": "B",
}  # fmt: skip


# Robust by hand (A, B, both per test):
MC_ROBUST = {
    "control": (100, 50, 50), "agent_random": (50, 100, 50), "agent_bind": (100, 0, 0), "coref": (50, 100, 50),
    "action_adv": (50, 100, 50), "action_manner": (50, 50, 50), "action_bind": (100, 100, 100), "chrono": (0, 100, 0),
}  # fmt: skip


# Official (rows 9, 12, 5 dropped):
MC_OFFICIAL = {
    "control": (100, 50, 50), "agent_random": (100, 100, 100), "agent_bind": (100, 0, 0), "coref": (50, 100, 50),
    "action_adv": (100, 100, 100), "action_manner": (0, 0, 0), "action_bind": (100, 100, 100), "chrono": (0, 100, 0),
}  # fmt: skip


MC_INVALID = {"robust": 100 * 1 / 32, "official": 100 * 4 / 32}  # robust: 12_posA; official: + 9_posB, 5_posA, 5_posB

# log P(Yes), log P(No) per question; None = no loglikelihood field; a dict may lack a key.
LOGPS = {
    "0_pos": (-0.1, -2.5), "0_neg": (-3.0, -0.05),  # control: strict right, classic right
    "8_pos": (-1.0, -1.0), "8_neg": (-2.0, -0.5),  # e+ = 0.5 exactly: strict wrong; classic right (0.5 > e-)
    "1_pos": (-0.2, -1.8), "1_neg": (-0.4, -1.2),  # agent_random: e- > 0.5: strict wrong; classic right
    "9_pos": (-0.3, -1.5), "9_neg": (-1.5, -0.3),  # right, right
    "2_pos": (-2.0, -0.2), "2_neg": (-2.5, -0.1),  # agent_bind: e+ < 0.5: strict wrong; classic right
    "10_pos": (-0.7, -0.7), "10_neg": (-0.7, -0.7),  # ties everywhere: wrong, wrong
    "3_pos": {"Yes": -2.0}, "3_neg": (-1.0, -0.9),  # coref: no 'No' -> P(No)=0, e+ = 1: right, right
    "11_pos": None, "11_neg": (-3.0, -0.1),  # no probabilities: e+ undefined: wrong, wrong
    "4_pos": (-0.5, -0.6), "4_neg": (-0.6, -0.5),  # action_adv: right, right
    "12_pos": (-0.4, -1.0), "12_neg": (-0.3, -1.2),  # strict wrong; classic wrong (e+ < e-)
    "5_pos": (-0.05, -3.0), "5_neg": (-0.05, -3.0),  # action_manner: equal e: wrong, wrong (tie)
    "13_pos": (-0.1, -2.3), "13_neg": (-5.0, -0.01),  # right, right
    "6_pos": (-0.3, -1.4), "6_neg": (-1.4, -0.3),  # action_bind: right, right
    "14_pos": (-0.2, -1.7), "14_neg": (-0.25, -1.6),  # strict wrong; classic right
    "7_pos": (-1.2, -0.4), "7_neg": (-2.0, -0.15),  # chrono: strict wrong; classic right
    "15_pos": (-0.6, -0.8), "15_neg": (-0.9, -0.5),  # right, right
}  # fmt: skip


# By hand (strict, classic): control (50, 100), agent_random (50, 100), agent_bind (0, 50), coref (50, 50),
# action_adv (50, 50), action_manner (50, 50), action_bind (50, 100), chrono (50, 100).
PROB = {
    "control": (50, 100), "agent_random": (50, 100), "agent_bind": (0, 50), "coref": (50, 50),
    "action_adv": (50, 50), "action_manner": (50, 50), "action_bind": (50, 100), "chrono": (50, 100),
}  # fmt: skip


# Subset rows 0..7 by hand (strict, classic): control (100, 100), agent_random (0, 100), agent_bind (0, 100),
# coref (100, 100), action_adv (100, 100), action_manner (0, 0), action_bind (100, 100), chrono (0, 100).
PROB_SUBSET = {
    "control": (100, 100), "agent_random": (0, 100), "agent_bind": (0, 100), "coref": (100, 100),
    "action_adv": (100, 100), "action_manner": (0, 0), "action_bind": (100, 100), "chrono": (0, 100),
}  # fmt: skip


# MC subset rows 0..7 (A, B, both). Robust: row 5 ('a', 'b') is right; official: it is dropped (NaN).
MC_SUBSET_ROBUST = {
    "control": (100, 100, 100), "agent_random": (100, 100, 100), "agent_bind": (100, 0, 0), "coref": (0, 100, 0),
    "action_adv": (100, 100, 100), "action_manner": (100, 100, 100), "action_bind": (100, 100, 100),
    "chrono": (0, 100, 0),
}  # fmt: skip


MC_SUBSET_OFFICIAL = {t: v for t, v in MC_SUBSET_ROBUST.items() if t != "action_manner"}


PROB_INVALID = 100 * 4 / 32  # e exactly 0.5 (8_pos, 10_pos, 10_neg) or undefined (11_pos)


def logp_table(value) -> dict[str, float] | None:
    """A replay line's loglikelihood table from an entry of :data:`LOGPS` (None: undefined)."""
    if value is None or isinstance(value, dict):
        return value
    return {"Yes": value[0], "No": value[1]}


def write_replay(path: Path, answers: dict[str, str], logps: dict | None = None) -> Path:
    """A replay file with generated answers and, optionally, loglikelihood tables."""
    records: dict[str, dict] = {}
    for qid, text in answers.items():
        records.setdefault(qid, {"question_id": qid})["response"] = text
    for qid, value in (logps or {}).items():
        table = logp_table(value)
        if table is not None:
            records.setdefault(qid, {"question_id": qid})["loglikelihood"] = table
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records.values():
            fh.write(json.dumps(rec) + "\n")
    return path


def all_answers() -> dict[str, str]:
    """The generated answers of every question of the fixture: StrictVLE and MC."""
    return {**STRICT_ANSWERS, **MC_ANSWERS}


# ----------------------------------------------------------------------------- the official scorers on export files


def per_test_csvs(folder: Path):
    """The export's CSV files by test, read as ``metrics.py`` reads them (pandas)."""
    import pandas as pd

    # metrics.py: glob("*.csv"), the result named by the file name, read with pandas
    return {Path(f).name.split(".")[0]: pd.read_csv(f) for f in sorted(folder.glob("*.csv"))}


def velociti_mcq(folder: Path) -> dict[str, tuple[float, float, float]]:
    """``metrics.py::mcq(gt_A, gt_B)``: first token exactly A/B, rows invalid in either order dropped; percent."""
    out = {}
    for name, data in per_test_csvs(folder).items():
        ans_a, ans_b = data["gt_A"], data["gt_B"]
        cnt_a = cnt_b = cnt_ab = tot = 0
        for i in range(len(ans_a)):
            a_i, b_i = ans_a[i].split()[0], ans_b[i].split()[0]
            if a_i in ("A", "B") and b_i in ("A", "B"):
                tot += 1
                cnt_a += a_i == "A"
                cnt_b += b_i == "B"
                cnt_ab += a_i == "A" and b_i == "B"
        out[name] = (100 * cnt_a / tot, 100 * cnt_b / tot, 100 * cnt_ab / tot)
    return out

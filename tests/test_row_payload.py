"""Ready-made table rows (issue 28, item 7): a payload made by ``process_results`` carries its row
(:class:`temporal_tasks.rows.RowPayload`), and every number read through those rows equals the number read from
plain dicts of the same content, which the table reads field by field."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from temporal_tasks import rows as row_module
from temporal_tasks import scoring_pass
from temporal_tasks.diagnostics import parse_disagreement, truncated_rate
from temporal_tasks.payloads import SharedPayload, results_for
from temporal_tasks.perf_scoring import aggregate_all, timeblind_payloads
from temporal_tasks.question_rates import question_rate
from temporal_tasks.rescore import task_metrics
from temporal_tasks.rows import (
    CORRECT,
    DISAGREE,
    ERRORS_SHIFT,
    INVALID,
    READINGS,
    REPEATS,
    TRUNCATED,
    RowPayload,
    row_flags,
)
from temporal_tasks.run_state import STATE
from temporal_tasks.scoring import Metric, group_outcomes, payload_table, reset_pass, score
from tests.hypothesis_profiles import examples

ROLES = ("a", "b", "c")


def _payload(g: int, r: int, rng: random.Random) -> dict:
    pred = rng.choice(["A", "B", None, "A"])
    p = {
        "question_id": f"{g}_{r}", "group_id": f"group/{g}", "role": ROLES[r], "group_size": 3,
        "categories": [rng.choice(["Fine Action", "speed", "Speed"]), "yes_no"], "gold": "A", "pred": pred,
        "correct": pred == "A", "truncated": rng.random() < 0.2, "parser_errors": rng.choice([0, 0, 0, 1, 5]),
    }  # fmt: skip
    if rng.random() < 0.8:  # some payloads hold only one reading
        p["pred_robust"], p["pred_official"] = pred, rng.choice([pred, None, "B"])
    return p


def _sets(seed: int, groups: int = 40) -> tuple[list[dict], list[dict]]:
    """The same payloads as plain dicts and as ready-made rows: shuffled, cut groups, a repeated answer."""
    rng = random.Random(seed)
    plain = [_payload(g, r, rng) for g in range(groups) for r in range(3) if not (g % 5 == 2 and r == 1)]
    plain.append(dict(plain[7]))  # the same question answered twice: counted once
    rng.shuffle(plain)
    return plain, [RowPayload(p) for p in plain]


METRICS = {
    "each": Metric("each"),
    "all": Metric("all", invalid="drop"),
    "pairs": Metric((("a", "b"), ("b", "c")), invalid="drop_group"),
    "each_drop": Metric("each", invalid="drop"),
}


def _numbers(items: list[dict]) -> dict:
    reset_pass()
    out: dict = {}
    for name, metric in METRICS.items():
        result = score(items, metric, label="t", key=name)
        out[name] = (result.value, result.ci_low, result.ci_high)
        outcomes = group_outcomes(items, metric, label="t")
        out[f"{name} outcomes"] = (outcomes.ids, outcomes.counts.tolist())
    for flag in ("invalid", "disagree", "truncated"):
        out[flag] = question_rate(items, flag, "t")
    out["parse_disagreement"], out["truncated_rate"] = parse_disagreement(items), truncated_rate(items)
    out["parser_errors"] = payload_table(items).parser_errors
    tab = payload_table(items)
    out["table"] = (tab.group_names.tolist(), tab.role_names.tolist(), tab.group.tolist(), tab.role.tolist(),
                    tab.correct.tolist(), tab.invalid.tolist(), tab.group_size.tolist(), tab.duplicates)  # fmt: skip
    return out


@pytest.mark.parametrize("seed", range(4))
def test_ready_made_rows_give_the_numbers_of_plain_dicts(seed):
    plain, rows = _sets(seed)
    assert all(isinstance(getattr(p, "row_key", None), int) for p in rows)
    expected = _numbers(plain)
    assert _numbers(rows) == expected
    # a list mixing both kinds is read as plain dicts: the same numbers again
    mixed = [p if i % 2 else dict(p) for i, p in enumerate(rows)]
    assert _numbers(mixed) == expected
    assert expected["parser_errors"] == sum(p["parser_errors"] for p in plain)  # the repeated answer's too


@settings(max_examples=examples(ci=25, deep=300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2), st.sampled_from(["A", "B", None]),
                          st.booleans(), st.integers(0, 3)), max_size=40))  # fmt: skip
def test_property_rows_and_dicts_agree(cells):
    plain = [
        {"question_id": f"{g}_{r}", "group_id": f"g{g}", "role": ROLES[r], "group_size": 3, "pred": pred,
         "correct": pred == "A", "truncated": trunc, "parser_errors": errors, "pred_robust": pred,
         "pred_official": None if errors else pred, "categories": ["x"]}
        for g, r, pred, trunc, errors in cells
    ]  # fmt: skip
    if not plain:
        return
    assert _numbers([RowPayload(p) for p in plain]) == _numbers(plain)


def test_row_flags_by_hand():
    base = {"pred": "A", "correct": True}
    assert row_flags(base) == CORRECT
    assert row_flags({"pred": None, "correct": False}) == INVALID
    assert row_flags({**base, "truncated": True, "repeats": [], "parser_errors": 3}) == (
        CORRECT | TRUNCATED | REPEATS | 3 << ERRORS_SHIFT
    )
    assert row_flags({**base, "pred_robust": "A", "pred_official": "A"}) == CORRECT | READINGS
    assert row_flags({**base, "pred_robust": "A", "pred_official": None}) == CORRECT | READINGS | DISAGREE
    assert row_flags({**base, "pred_robust": "A"}) == CORRECT  # one reading: not counted for disagreement
    assert row_flags({"pred": "", "correct": 1}) == CORRECT  # truthiness, as bool() of each
    with pytest.raises(KeyError):
        row_flags({"pred": "A"})


def test_a_change_through_any_dict_method_makes_the_row_again():
    p = RowPayload(_sets(0)[0][0])
    before = p.row_key

    def flags(x: RowPayload) -> int:
        return x.row_key & ((1 << row_module.KEY_SHIFT) - 1)

    changes = [
        lambda x: x.__setitem__("correct", not x["correct"]),
        lambda x: x.update(truncated=not x["truncated"]),
        lambda x: x.__ior__({"parser_errors": x["parser_errors"] + 1}),
        lambda x: x.setdefault("repeats", []),
        lambda x: x.pop("repeats"),
    ]
    for change in changes:
        old = flags(p)
        change(p)
        assert flags(p) == row_flags(p) and flags(p) != old
    assert p.row_key >> row_module.KEY_SHIFT == before >> row_module.KEY_SHIFT  # the same group
    del p["pred"]  # a payload the table cannot read as a row: it has none (and the table says why)
    assert not hasattr(p, "row_key")
    with pytest.raises(KeyError):
        payload_table([p, RowPayload(_sets(1)[0][0])])
    p.clear()
    assert not hasattr(p, "row_key")
    p.update(_sets(0)[0][1])
    assert p.row_key & 0xFFFF == row_flags(p)


def test_pickled_and_copied_rows_are_made_again_and_non_string_ids_have_none():
    shared = SharedPayload(_sets(2)[0][0], "invalid_rate")
    for twin in (pickle.loads(pickle.dumps(shared)), copy.copy(shared), copy.deepcopy(shared)):
        assert type(twin) is SharedPayload and twin.primary == "invalid_rate" and dict(twin) == dict(shared)
        assert twin.row_group is shared.row_group  # interned: the identity is the value
        assert twin.row_key == shared.row_key and twin.row_role is shared.row_role
    assert not hasattr(RowPayload({**shared, "group_id": 7}), "row_key")
    assert not hasattr(RowPayload({**shared, "parser_errors": 2000}), "row_key")  # does not fit the key


def test_group_ids_from_another_process_are_one_group():
    """Equal group ids that are different objects (not interned: built apart) still make one group."""
    plain, _rows = _sets(3)
    rows = [RowPayload({**p, "group_id": "".join(p["group_id"])}) for p in plain]
    assert _numbers(rows) == _numbers(plain)


def test_category_lists_are_found_without_identity_lookups(monkeypatch):
    per_doc = timeblind_payloads(4000)
    keys = [key for key, _fn, _h in task_metrics("timeblind_iacc")]
    expected = {}
    reset_pass()
    calls = []
    monkeypatch.setattr(scoring_pass._Pass, "rows_of", lambda self, items: calls.append(len(items)) or -1)
    aggregate_all("timeblind_iacc", per_doc)
    assert calls == []  # every category key was resolved from the rows' categories
    tables = {id(t) for entries in STATE.scoring_pass.lists.values() for _items, t in entries}
    assert len(tables) == 5  # the task's payloads and its four tag categories ("yes_no" is every payload)
    monkeypatch.undo()
    for key, fn, _h in task_metrics("timeblind_iacc"):
        items = [d[key] for d in per_doc if key in d]
        if items:
            expected[key] = fn(items)
    # the same payloads as plain dicts (one dict per shared payload): identity lookups, the same numbers
    plain: dict[int, dict] = {}
    reset_pass()
    got = {}
    for key, fn, _h in task_metrics("timeblind_iacc"):
        items = [plain.setdefault(id(d[key]), dict(d[key])) for d in per_doc if key in d]
        if items:
            got[key] = fn(items)
    assert repr(got) == repr(expected) and len(got) > 15 and set(got) <= set(keys)


def test_a_list_equal_in_content_is_not_taken_for_a_category_of_the_pass():
    per_doc = timeblind_payloads(4000)
    other = timeblind_payloads(4000)  # the same content, other objects (the next task's, a rescore's)
    key = "instance_acc_direction"
    reset_pass()
    mine = [d[key] for d in per_doc if key in d]
    theirs = [d[key] for d in other if key in d]
    payload_table([d["instance_acc"] for d in per_doc])
    first = STATE.scoring_pass
    sub = payload_table(mine)
    assert STATE.scoring_pass is first and list(sub.items) == mine
    # one payload swapped where the identity probes do not look: the whole list is compared, so not that category
    at = next(i for i in range(1, len(mine)) if i % max(1, len(mine) // 64))
    changed = list(mine)
    changed[at] = RowPayload({**mine[at], "correct": not mine[at]["correct"]})
    assert scoring_pass._fingerprint(changed) == scoring_pass._fingerprint(mine)
    assert payload_table(changed).correct.sum() != sub.correct.sum()
    fresh = payload_table(theirs)
    assert STATE.scoring_pass is not first and STATE.scoring_pass.items[0] is theirs[0]
    assert fresh.correct.tolist() == sub.correct.tolist()


def test_a_new_payload_set_sharing_group_ids_is_not_looked_up_by_identity(monkeypatch):
    """The next task over the same questions (interned group ids, other payload objects) starts a new pass at once."""
    a, b = timeblind_payloads(800), timeblind_payloads(800)
    reset_pass()
    payload_table([d["instance_acc"] for d in a])
    monkeypatch.setattr(scoring_pass._Pass, "rows_of", lambda self, items: pytest.fail("identity lookup"))
    new = payload_table([d["instance_acc"] for d in b][:500])  # fewer: could have been a subset
    assert STATE.scoring_pass.table is new
    some = [d["instance_acc"] for d in b][:100] + [d["instance_acc"] for d in a][100:150]
    monkeypatch.undo()
    reset_pass()
    payload_table([d["instance_acc"] for d in a])
    assert scoring_pass._rows_in(STATE.scoring_pass, some) is None  # part of it is not the pass's


def test_results_for_makes_rows():
    p = _sets(0)[0][0]
    shared = results_for(p, ["invalid_rate", "instance_acc"], ("instance_acc",))["instance_acc"]
    assert isinstance(shared, RowPayload)
    assert shared.row_categories == tuple(dict.fromkeys(c.lower().replace(" ", "_") for c in p["categories"]))
    assert np.int64(shared.row_key) >> row_module.KEY_SHIFT == id(shared.row_group) >> 4


def test_the_primary_keys_list_is_compared_by_its_twins():
    """The primary key's list (payloads.PrimaryPayload, each naming its shared twin) of a known set resolves to the
    pass's table; one twin swapped where the probes do not look is not taken for it."""
    per_doc = timeblind_payloads(4000)
    reset_pass()
    shared = payload_table([d["instance_acc"] for d in per_doc])
    primaries = [d["invalid_rate"] for d in per_doc]
    assert type(primaries[0]).__name__ == "PrimaryPayload" and primaries[0].twin is per_doc[0]["instance_acc"]
    assert payload_table(primaries) is shared
    at = next(i for i in range(1, len(primaries)) if i % max(1, len(primaries) // 64))
    swapped = list(primaries)
    odd = per_doc[at]["instance_acc"]
    swapped[at] = type(primaries[at])(dict(primaries[at]), SharedPayload({**odd, "correct": not odd["correct"]}, "x"))
    assert scoring_pass._fingerprint([p.twin for p in swapped]) == scoring_pass._fingerprint(shared.items)
    other = payload_table(swapped)
    assert other is not shared and int(other.correct.sum()) != int(shared.correct.sum())

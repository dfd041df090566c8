"""Per-category CIs of the viewer's category bars (``tools/view/category_ci.py``): the group bootstrap of each
per-category key's group outcomes, from the samples."""

from __future__ import annotations

import numpy as np

from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.tools.timeorder import collect
from temporal_tasks.tools.view.category_ci import category_cis
from tests.helpers.timeorder_runs import MAIN, answers, docs, write_run


def test_each_category_key_gets_the_bootstrap_of_its_groups(offline_env, tmp_path):
    questions = docs()
    run = write_run(tmp_path / "run", {MAIN: answers(questions, {0, 2})})
    (tr,) = collect([run])
    cis = category_cis(MAIN, tr.items())
    assert cis and all(key.startswith(("instance_acc_", "trial_acc_", "question_acc_", "video_acc_")) for key in cis)
    assert "instance_acc" not in cis
    # by hand: the instances in each category of instance_acc, right in 0 and 2
    members: dict[str, set[int]] = {}
    for d in questions:
        group = int(str(d["group_id"]).rsplit("/", 1)[1])
        for cat in d.get("categories") or []:
            members.setdefault(cat.lower().replace(" ", "_").replace("-", "_"), set()).add(group)
    checked = 0
    for cat, groups in members.items():
        key = f"instance_acc_{cat}"
        if key in cis:
            counts = np.array([[int(g in {0, 2}), 1] for g in sorted(groups)])
            assert cis[key] == bootstrap_ci(counts), key
            checked += 1
    assert checked >= 3


def test_a_repeats_run_gets_none(offline_env, tmp_path):
    questions = docs()
    given = {q: [a, a] for q, a in answers(questions, {0}).items()}
    (tr,) = collect([write_run(tmp_path / "run", {MAIN: given})])
    assert category_cis(MAIN, tr.items()) == {}

"""VELOCITI's importer hook (``benchmarks/velociti/importer.py``): official CSV rows and exported closed-model
answers to our ids; a probability survives the log-likelihood round trip."""

from __future__ import annotations

import math
import random

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.importer import RESPONSES, import_answers
from tests.helpers.files import read_jsonl


def test_velociti_official_csv_rows_by_table_order(offline_env, tmp_path):
    import pandas as pd

    table = pd.read_parquet(offline_env / "velociti" / "test-data.parquet")
    test = str(table["test_name"].iloc[-1])
    rows = [i for i, t in enumerate(table["test_name"]) if t == test]
    out = tmp_path / "output" / "llava-ov"  # vidllm_eval.py: OUT/<model>/<test>.csv, no row numbers
    out.mkdir(parents=True)
    frame = pd.DataFrame(
        {
            "test_name": test,
            "video_id": [str(table["video_id"].iloc[r]).split(".")[0] for r in rows],
            "event": [str(table["event"].iloc[r]) for r in rows],
            "pos_score": [0.9, float("nan"), *[0.5] * (len(rows) - 2)],
            "neg_score": [0.1] * len(rows),
        }  # fmt: skip
    )
    extra = frame.iloc[:1].copy()  # one line more than the test has rows: no question of ours
    pd.concat([frame, extra]).to_csv(out / f"{test}.csv", index=False)
    record = import_answers("velociti", [out / f"{test}.csv"], tmp_path / "imp")
    counts = record["tasks"]["velociti_strictvle_prob"]
    assert counts["answered"] == 2 * len(rows) and counts["unknown"] == 2 and counts["null"] == 1
    assert counts["missing"] == counts["questions"] - 2 * len(rows)  # the other tests were not given
    lines = {x["question_id"]: x for x in read_jsonl(tmp_path / "imp" / RESPONSES)}
    first = lines[f"{rows[0]}_pos"]["loglikelihood"]
    assert first == {"Yes": math.log(0.9), "No": math.log1p(-0.9)}
    assert lines[f"{rows[1]}_pos"] == {"task": "velociti_strictvle_prob", "question_id": f"{rows[1]}_pos",
                                       "response": ""}  # fmt: skip
    frame.loc[1, "video_id"] = "someone_else"  # lines out of table order, or other data
    frame.to_csv(out / f"{test}.csv", index=False)
    with pytest.raises(DataError, match=rf"{test}\.csv: 1 line\(s\) disagree.*line 3"):
        import_answers("velociti", [out / f"{test}.csv"], tmp_path / "imp")


def test_velociti_exported_closed_model_answers(offline_env, tmp_path):
    import pandas as pd

    table = pd.read_parquet(offline_env / "velociti" / "test-data.parquet")
    folder = tmp_path / "export" / "velociti_strictvle"  # our export: <task>/<test>.csv, with the table row
    folder.mkdir(parents=True)
    test = str(table["test_name"].iloc[0])
    rows = [i for i, t in enumerate(table["test_name"]) if t == test][:2]
    frame = pd.DataFrame(
        {
            "row": rows,
            "video_id": "",
            "test_name": test,
            "event": "",
            "pos": "",
            "neg": "",
            "pos_pred": ["Yes", "error"],
            "neg_pred": ["No", "No"],
            "pos_response": ["Yes, it does.", ""],
            "neg_response": ["No", "Nothing. No."],
        }  # fmt: skip
    )
    frame.to_csv(folder / f"{test}.csv", index=False)
    record = import_answers("velociti", [tmp_path / "export"], tmp_path / "imp")
    counts = record["tasks"]["velociti_strictvle"]
    assert (counts["answered"], counts["null"], counts["unknown"]) == (4, 1, 0)
    assert "closed-model" in record["files"][0]["format"] and "our export" in record["files"][0]["format"]
    lines = {x["question_id"]: x["response"] for x in read_jsonl(tmp_path / "imp" / RESPONSES)}
    # the raw answers, not the labels derived from them
    assert lines == {f"{rows[0]}_pos": "Yes, it does.", f"{rows[0]}_neg": "No", f"{rows[1]}_pos": "",
                     f"{rows[1]}_neg": "Nothing. No."}  # fmt: skip


def test_a_probability_survives_the_log_likelihood_round_trip():
    from temporal_tasks.benchmarks.velociti.importer import _loglikelihood
    from temporal_tasks.benchmarks.velociti.tasks import entailment_score

    rng = random.Random(5)
    for e in [0.0, 1.0, 0.5, 0.25, 1e-12, 1 - 1e-12, *(rng.random() for _ in range(2000))]:
        ll = _loglikelihood(e)
        back = entailment_score(-ll["Yes"], -ll["No"])  # the replay model returns the loss -log p
        assert back == pytest.approx(e, abs=1e-15, rel=1e-12)
        assert (back > 0.5, back < 0.5) == (e > 0.5, e < 0.5), e  # the StrictVLE thresholds exactly

"""The papers' reference numbers (``tools/report/references.py``): well formed, copied from the papers, one file per
benchmark package."""

from __future__ import annotations

import json

import pytest

from temporal_tasks.tools import report
from temporal_tasks.tools.report import (
    BENCHMARKS,
    classify,
    load_references,
)

# ---------------------------------------------------------------- reference numbers


def test_reference_numbers_are_well_formed():
    # One references.json per benchmark package, each holding its own benchmark's entries only.
    files = {p: json.loads(p.read_text(encoding="utf-8"))["entries"] for p, _spec in report.reference_files()}
    assert len(files) == len(BENCHMARKS)
    for p, entries in files.items():
        assert len({e["benchmark"] for e in entries}) == 1, p
    data = {"entries": [e for entries in files.values() for e in entries]}
    specs = {s.name: s for s in BENCHMARKS}
    assert {e["benchmark"] for e in data["entries"]} == set(specs)
    for e in data["entries"]:
        spec = specs[e["benchmark"]]
        where = f"{e['benchmark']} {e['model']} {e['source']}"
        assert e["model"] and e["setting"] and e["metrics"], where
        assert e["source"]["paper"] and e["source"]["table"], where
        assert e["tasks"] and all(report.benchmark_of(t) is spec for t in e["tasks"]), where
        for key, value in e["metrics"].items():
            assert isinstance(value, int | float) and -100 <= value <= 100, (where, key)
            base = key.rsplit("_ci_", 1)[0] if key.endswith(("_ci_low", "_ci_high")) else key
            kind, _fam, cat = classify(spec, base)
            # Every reference key must land in a table column, never in "other metrics".
            assert kind == "headline" or (kind == "category" and cat in spec.categories), (where, key)
    for spec in specs.values():
        models = {e["model"] for e in data["entries"] if e["benchmark"] == spec.name}
        assert "Random Chance" in models and "Human" in models, spec.name


def test_reference_values_copied_from_the_papers():
    refs = {(r.benchmark, r.model, r.setting): r for r in load_references()}
    gpt5 = refs[("TimeBlind", "GPT-5", "uniform 1 FPS, default configs, full set (600 instances)")]
    assert gpt5.metrics["instance_acc"].value == 46.3  # Table 2
    assert gpt5.metrics["instance_acc_fine_grained_actions"].value == 62.5  # Table 3
    assert gpt5.tables == ["Table 2", "Table 3"]
    human = refs[("TimeBlind", "Human", "human evaluation")]
    assert human.metrics["instance_acc"] == report.Value(98.2, 96.8, 99.0)
    assert refs[("Vinoground", "GPT-4o", "32 frames")].metrics["group_score_viewpoint"].value == 45.78
    assert refs[("TemporalBench", "GPT-4o", "64 frames")].metrics["mba_coin"].value == 32.7
    ov7 = refs[("VELOCITI", "LLaVA-OneVision-7B", "full test set")]
    assert (ov7.metrics["strict_vle"].value, ov7.metrics["strict_vle_control"].value) == (32.1, 81.6)
    assert ov7.metrics["mc_bias"].value == 67.8


def test_packaged_reference_file_holds_its_own_benchmark_only(tmp_path, monkeypatch):
    from temporal_tasks.api.registry import Benchmark
    from temporal_tasks.tools.report import references

    path = tmp_path / "references.json"
    entry = {"model": "M", "setting": "s", "tasks": ["x_task"], "source": {"paper": "P", "table": "T"}}
    spec = Benchmark(name="x", title="X", package="temporal_tasks", references=str(path))
    monkeypatch.setattr(references, "registered", lambda: {"x": spec})
    path.write_text(json.dumps({"entries": [{**entry, "benchmark": "X", "metrics": {"acc": 1.0}}]}), encoding="utf-8")
    assert [(r.benchmark, r.model, r.metrics["acc"].value) for r in load_references()] == [("X", "M", 1.0)]
    path.write_text(json.dumps({"entries": [{**entry, "benchmark": "Y", "metrics": {"acc": 1.0}}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="names the benchmark 'Y', but this file holds x's references"):
        load_references()


def test_shortcut_references_cite_their_tables():
    from temporal_tasks.tools.report import load_references

    refs = {(r.benchmark, r.label): r for r in load_references()}
    single = refs[("TimeBlind", "GPT-5 (single frame)")]
    assert list(single.tasks) == ["timeblind_iacc_single_frame"] and single.metrics["instance_acc"].value == 4.5
    assert single.metrics["question_acc"].value == 14.8 and single.metrics["video_acc"].value == 32.3
    assert refs[("VELOCITI", "Qwen2-72B LLM (text only)")].metrics["strict_vle"].value == 3.7
    assert refs[("VELOCITI", "OV-72B (blind)")].metrics["strict_vle"].value == 8.1
    assert refs[("VELOCITI", "OV-7B (1 frame)")].metrics["strict_vle_chrono"].value == 10.3
    assert refs[("TemporalBench", "GPT-4o (text only)")].metrics["binary_acc"].value == 67.7

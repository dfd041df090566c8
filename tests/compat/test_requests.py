"""Contract tests of ``compat/requests.py``: the arguments of lmms-eval's requests, in order, and what a
multiple-choice result looks like when it reaches ``process_results``."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

from temporal_tasks import compat
from tests.helpers.compat import LMMS_EVAL_CHANGED


def _constructed(output_type: str, **extra):
    from lmms_eval.api.task import ConfigurableTask

    def doc_to_visual(doc):
        return ["video.mp4"]

    config = SimpleNamespace(
        task="t",
        generation_kwargs={"max_new_tokens": 7},
        target_delimiter=" ",
        doc_to_text=lambda doc, lmms_eval_specific_kwargs=None: "q",
    )
    task = SimpleNamespace(
        OUTPUT_TYPE=output_type,
        config=config,
        doc_to_visual=doc_to_visual,
        doc_to_target=lambda doc: "Yes",
        doc_to_choice=lambda doc: ["Yes", "No"],
        dataset={"test": {4: {}}},
        multiple_input=False,
        _metric_fn_list={},
        lmms_eval_specific_kwargs=None,
        **extra,
    )
    metadata = {"task": "t", "doc_id": 4, "repeats": 1, "split": "test"}
    return ConfigurableTask.construct_requests(task, 4, "the prompt", metadata=metadata), doc_to_visual


def test_contract_requests_carry_their_arguments_in_order():
    req, visual = _constructed("generate_until")
    try:
        context, gen_kwargs, doc_to_visual, doc_id, task, split = compat.generate_args(req)
    except ValueError as exc:
        pytest.fail(f"{LMMS_EVAL_CHANGED}: generate_until arguments are no longer 6 ({exc}; compat.generate_args)")
    assert (context, gen_kwargs, doc_to_visual, doc_id, task, split) == (
        "the prompt",
        {"max_new_tokens": 7},
        visual,
        4,
        "t",
        "test",
    ), f"{LMMS_EVAL_CHANGED}: generate_until arguments changed order: {req.args}"
    assert compat.request_context(req) == "the prompt" and compat.request_visuals(req) is visual
    assert compat.request_doc(req) == (4, "t", "test")

    reqs, visual = _constructed("multiple_choice")
    assert [compat.loglikelihood_args(r) for r in reqs] == [
        ("the prompt", " Yes", visual, 4, "t", "test"),
        ("the prompt", " No", visual, 4, "t", "test"),
    ], f"{LMMS_EVAL_CHANGED}: multiple_choice arguments changed: {[r.args for r in reqs]}"
    assert [r.request_type for r in reqs] == ["loglikelihood", "loglikelihood"], LMMS_EVAL_CHANGED

    req, visual = _constructed("loglikelihood")
    context, continuation, doc_to_visual, doc_id, task, split = compat.loglikelihood_args(req)
    assert callable(continuation) and (context, doc_to_visual, doc_id, task, split) == (
        "the prompt",
        visual,
        4,
        "t",
        "test",
    ), f"{LMMS_EVAL_CHANGED}: loglikelihood arguments changed: {req.args}"

    req, visual = _constructed("generate_until_multi_round")
    assert compat.request_doc(req) == (4, "t", "test") and compat.request_visuals(req) is visual, (
        f"{LMMS_EVAL_CHANGED}: multi-round arguments changed: {req.args}"
    )


@pytest.mark.parametrize("kept", ["take_first", "ours"])
def test_contract_multiple_choice_results_reach_process_results_as_text(kept):
    import math

    import numpy as np
    from lmms_eval import evaluator
    from lmms_eval.api.instance import Instance, unwrap_generation_output
    from lmms_eval.filters import build_filter_ensemble

    from temporal_tasks.harness.doc_hooks import FirstOfRepeats

    src = inspect.getsource(inspect.unwrap(evaluator.evaluate))
    assert "text, tc = unwrap_generation_output(x)" in src and "req.resps.append(text)" in src, (
        f"{LMMS_EVAL_CHANGED}: model results no longer pass through unwrap_generation_output (compat.loss_value)"
    )
    assert "task.process_results(doc, [req.filtered_resps[filter_key] for req in requests])" in inspect.getsource(
        evaluator
    ), f"{LMMS_EVAL_CHANGED}: process_results no longer gets one filtered result per request"
    metadata = {"task": "t", "doc_id": 0, "repeats": 1}
    model_out = [(0.25, False), (np.float64(1.5), np.True_), (math.inf, False), (2.0, True)]
    reqs = [Instance("loglikelihood", ("c", f" {i}"), idx=i, metadata=metadata) for i in range(len(model_out))]
    for out, req in zip(model_out, reqs, strict=True):
        text, _ = unwrap_generation_output(out)
        req.resps.append(text)
    build_filter_ensemble("none", [["take_first" if kept == "take_first" else FirstOfRepeats, None]]).apply(reqs, [])
    results = [req.filtered_resps["none"] for req in reqs]
    assert [compat.loss_value(r) for r in results] == [0.25, 1.5, math.inf, 2.0], (
        f"{LMMS_EVAL_CHANGED}: a multiple_choice result now reaches process_results as {results!r}"
    )
    assert math.isnan(compat.loss_value("garbage")) and math.isnan(compat.loss_value(None))

"""A plain script that adds our tasks to an existing eval stack through lmms-eval's Python API.

``python api_run.py evaluate|simple_evaluate RESPONSES OUT.json [anything else]``: the extra arguments
stand for the script's own command line (e.g. ``--model_args max_num_frames=16`` of some other tool),
which must not decide N. The model is a ``temporal_replay`` instance made with ``max_num_frames=8``.
"""

from __future__ import annotations

import json
import sys

from lmms_eval.evaluator import evaluate, simple_evaluate
from lmms_eval.tasks import TaskManager, get_task_dict

from temporal_tasks.base.run_state import STATE
from temporal_tasks.harness.replay import TemporalReplay


def main() -> None:
    mode, responses, out = sys.argv[1:4]
    task = "vinoground_group"
    lm = TemporalReplay(responses=responses, max_num_frames=8, visuals="true")  # visuals: as a real model
    if mode == "evaluate":
        task_dict = get_task_dict([task], TaskManager())
        for name, obj in task_dict.items():
            lm.task_dict[name] = obj.dataset  # what simple_evaluate does for the models; evaluate() callers do it
        results = evaluate(lm, task_dict, log_samples=False)
    else:
        results = simple_evaluate(model=lm, tasks=[task], log_samples=False, batch_size=1)
    metrics = {k: v for k, v in results["results"][task].items() if isinstance(v, int | float)}
    builder = STATE.builders.get("vinoground")  # paired videos planned for background builds in this evaluation
    metrics["_background_planned"] = builder.planned if builder is not None else 0
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(metrics, fh)


if __name__ == "__main__":
    main()

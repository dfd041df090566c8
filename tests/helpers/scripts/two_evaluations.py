"""Several ``simple_evaluate`` calls in one process, each recorded apart (results, provenance, warnings, notes).

``python two_evaluations.py PLAN.json OUT.json``: PLAN is a list of ``{"data_dir", "n", "tasks", "responses"}``,
run in that order in this one process. OUT gets one record per evaluation, in the same order.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

from lmms_eval.evaluator import simple_evaluate
from loguru import logger


def one(step: dict) -> dict:
    os.environ["TEMPORAL_TASKS_DATA_DIR"] = step["data_dir"]
    lines: list[str] = []
    sink = logger.add(lambda msg: lines.append(str(msg).strip()), level="WARNING", format="{message}")
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            out = simple_evaluate(
                model="temporal_replay",
                model_args=f"responses={step['responses']},max_num_frames={step['n']}",
                tasks=step["tasks"],
                batch_size=1,
                log_samples=False,
            )
    finally:
        logger.remove(sink)
    results = {
        task: {k: v for k, v in vals.items() if isinstance(v, int | float) and not isinstance(v, bool)}
        for task, vals in out["results"].items()
    }
    provenance = {task: (cfg.get("metadata") or {}).get("provenance") for task, cfg in out["configs"].items()}
    notes = sorted({x for x in err.getvalue().splitlines() if x.startswith("temporal-tasks:")})
    return {"results": results, "provenance": provenance, "warnings": sorted(set(lines)), "notes": notes}


def main() -> None:
    plan = json.loads(open(sys.argv[1], encoding="utf-8").read())
    records = [one(step) for step in plan]
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump(records, fh, default=str)


if __name__ == "__main__":
    main()

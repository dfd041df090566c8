"""Stand-ins for lmms-eval's evaluation frames and models: what compat finds on the stack, without lmms-eval."""

from __future__ import annotations

from temporal_tasks import compat


class FrameModel:
    """A video model as lmms-eval's are: its frame count as an attribute."""

    def __init__(self, n: int) -> None:
        self.max_num_frames = n


def fake_evaluate() -> dict:
    """The namespace of a stand-in for lmms-eval's ``evaluate``, as compat finds it on the stack (module
    ``lmms_eval.evaluator``, locals ``lm`` and ``task_dict``); it returns what ``namespace["probe"]()`` returns."""
    source = (
        "def evaluate(lm, task_dict, limit=None, offset=0):\n"
        "    return probe()\n"
    )  # fmt: skip
    namespace = {"__name__": compat.EVALUATOR_MODULE}
    exec(compile(source, "<lmms_eval.evaluator>", "exec"), namespace)  # noqa: S102 - a stand-in frame
    return namespace

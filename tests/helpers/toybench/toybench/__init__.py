"""ToyBench: a fifth benchmark declared entirely outside ``temporal_tasks`` (docs/adding-a-benchmark.md).

Two yes/no questions per video (a group of two, scored all-or-nothing as ``pair_acc``), one category. It
is registered the way any other package registers one: the entry point ``toybench = toybench:SPEC`` in the
group ``temporal_tasks.benchmarks`` (here ``toybench-0.1.dist-info/entry_points.txt``, next to this
package). Its YAML folder is ``tests/helpers/toybench/tasks``. No module of ``temporal_tasks`` names it.
"""

from pathlib import Path

from temporal_tasks.api import Benchmark, Metric, MetricList, PerCategory

NAME = "toybench"
CATEGORIES = ("motion",)

SPEC = Benchmark(
    name=NAME,
    title="ToyBench",
    package=__name__,
    paper="A toy benchmark for the plugin's own tests",
    tasks_dir=str(Path(__file__).resolve().parent.parent / "tasks"),
    families=("pair_acc",),
    categories=CATEGORIES,
    tasks=("toybench_pair",),
    metric_labels={"pair_acc": "pair accuracy"},
    shortcut_main="toybench_pair",
    published={(NAME, "questions"): 8, (NAME, "videos"): 4},
    check=".check:parts",
    fixture=".fixture:write",
    demo_tasks=("toybench_pair",),
    parsers=".tasks",
    metric_lists=(
        MetricList(
            "_default_template_yaml",
            values={"pair_acc": Metric("all")},  # a video counts when both its questions are right
            ci=("pair_acc",),
            per_category=(PerCategory(("pair_acc",), CATEGORIES),),
            comment="pair accuracy (both questions of a video right), unreadable answers, 95% CI (videos bootstrapped)",
        ),
    ),
)

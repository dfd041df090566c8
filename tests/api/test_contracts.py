"""The typed contracts (``api/contracts.py``): the ``Doc`` every loader yields and the options it shows, checked on
the docs of every task; a hook that does not resolve or fit its ``Protocol`` stops at registration.

That each registered benchmark's hooks fit is not repeated here: registration runs the same check
(``api/registry.py``), so a misfit hook already fails every test that reads the registry.
"""

from __future__ import annotations

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.spec import Benchmark


def test_the_doc_type_names_the_core_fields_every_loader_yields():
    core = contracts.Doc.__required_keys__
    assert core == {"question_id", "group_id", "role", "group_size", "prompt", "gold", "parser", "videos"}


def _toy(**hooks) -> Benchmark:
    return Benchmark(name="toy", title="Toy", package="toybench_missing", **hooks)


@pytest.mark.parametrize(
    "hooks, named",
    [
        ({"check": "temporal_tasks.benchmarks.timeblind.check:partz"}, "check"),
        ({"view": "temporal_tasks.benchmarks.timeblind.vieww:shape"}, "view"),
        ({"export": "temporal_tasks.benchmarks.timeblind.view:shape"}, "ExportHook"),  # one argument, not two
        ({"fixture": "temporal_tasks.benchmarks.timeblind.view:shape"}, None),  # one argument, as FixtureHook: ok
        ({"importer": "temporal_tasks.benchmarks.timeblind.fixture:write"}, "ImporterHook"),
        ({"parsers": "temporal_tasks.benchmarks.timeblind.parserz"}, "parsers"),
    ],
)
def test_a_hook_that_does_not_resolve_or_fit_its_contract_stops_at_registration(hooks, named):
    spec = _toy(**hooks)
    if named is None:
        contracts.check_hooks(spec)
        return
    with pytest.raises(ValueError, match=named):
        contracts.check_hooks(spec)


def test_every_loader_passes_the_options_it_shows(offline_env):
    from temporal_tasks.answers.parsing import get_parser
    from temporal_tasks.benchmarks.temporalbench import loader as temporalbench_loader
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.benchmarks.velociti import tasks as velociti
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground
    from temporal_tasks.harness.task_docs import docs_dataset

    docs = {
        "timeblind": timeblind.load_docs(),
        "vinoground": vinoground.load_docs(variant="group"),
        "temporalbench": temporalbench_loader.load_docs(),
        "velociti": velociti.load_docs(kind="all"),
    }
    for bench, ds in docs.items():
        for d in ds:
            labels = [o["label"] for o in d["options"]]
            assert labels == list(get_parser(d["parser"]).labels), (bench, d["question_id"])
            assert all(o["text"] and isinstance(o["names"], list) for o in d["options"]), (bench, d["question_id"])
            if d["parser"] not in ("timeblind_yes_no", "velociti_yes_no"):
                # every option text is what the prompt shows
                assert all(" ".join(o["text"].split()) in " ".join(d["prompt"].split()) for o in d["options"]), d
        docs_dataset(lambda ds=ds: ds)  # a consistent schema for datasets.Dataset.from_list
    video = [d for d in docs["vinoground"] if d["kind"] == "video"]
    assert video and all("second segment" in d["options"][1]["names"] for d in video)

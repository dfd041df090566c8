"""The typed contracts (``api/contracts.py``): the ``Doc`` every loader yields and the options it shows, checked on
the docs of every task; a hook that does not resolve or fit its ``Protocol`` stops at registration.

That each registered benchmark's hooks fit is not repeated here: registration runs the same check
(``api/registry.py``), so a misfit hook already fails every test that reads the registry.
"""

from __future__ import annotations

import typing

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.registry import of_task, registered
from temporal_tasks.api.spec import Benchmark
from temporal_tasks.harness.task_configs import our_tasks, task_config
from temporal_tasks.tools.samples import docs_of_task


def _fits(value: object, hint: object) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (str, int, list[...] or a TypedDict, as ``Doc`` uses)."""
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if typing.is_typeddict(hint):
        fields = typing.get_type_hints(hint)
        return isinstance(value, dict) and all(_fits(v, fields[k]) for k, v in value.items() if k in fields)
    return isinstance(value, hint)


def test_the_doc_type_names_the_core_fields_every_loader_yields(fixture_root, cache_root):
    """Every task's docs, as its ``process_docs`` builds them on the fixtures (groups have none): each holds every
    core field of ``Doc`` with its type, and a field that every loader yields is one the type names."""
    fields = typing.get_type_hints(contracts.Doc)
    core = contracts.Doc.__required_keys__
    tasks = sorted(task for task in our_tasks() if task_config(task).get("process_docs") is not None)
    assert {of_task(task).name for task in tasks} == set(registered())  # every registered benchmark's loaders
    everywhere: set[str] | None = None
    for task in tasks:
        docs = docs_of_task(task, fixture_root, cache_root)
        assert docs, f"{task}: no docs"
        for doc in docs:
            where = f"{task} question {doc.get('question_id')!r}"
            assert core <= set(doc), f"{where}: no {sorted(core - set(doc))}"
            wrong = {key: doc[key] for key in fields.keys() & doc.keys() if not _fits(doc[key], fields[key])}
            assert not wrong, f"{where}: not of the type Doc declares: {wrong}"
            everywhere = set(doc) if everywhere is None else everywhere & set(doc)
    assert everywhere is not None and everywhere - set(fields) == set(), (
        f"every loader yields {sorted(everywhere - set(fields))}, which the Doc type does not name"
    )


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


def test_a_decode_sample_spreads_k_picks_from_first_to_last_and_takes_all_when_k_exceeds_them():
    from temporal_tasks.api.contracts import Part

    def picks(videos, k):
        part = Part("bench", "part")
        part.decode_sample(videos, k)
        return part.decode

    five = ["e", "a", "c", "b", "d", "a"]  # sorted and deduplicated first
    assert picks(five, 2) == ["a", "e"] and picks(five, 3) == ["a", "c", "e"] and picks(five, 1) == ["a"]
    # more asked than there are: every video once (it took only the first two: the step was (n-1)/(k-1))
    assert picks(["a", "b", "c"], 5) == ["a", "b", "c"]
    assert picks(five, 0) == [] and picks([], 3) == []
    part = Part("bench", "part")
    part.decode_sample(["a", "b"], 2)
    part.decode_sample(["b", "c"], 2)
    assert part.decode == ["a", "b", "c"]  # a video already picked is not added twice

"""The typed contracts: every registered benchmark's hooks and task functions take what the Protocols say."""

from __future__ import annotations

import inspect
import typing

import pytest

from temporal_tasks.api import contracts
from temporal_tasks.api.registry import registered
from temporal_tasks.api.spec import Benchmark
from temporal_tasks.scoring.payloads import make_payload

HOOKS = contracts.HOOKS


def _positional(fn) -> tuple[int, int]:
    """``(required, accepted)`` positional parameters of ``fn`` (accepted: -1 for *args)."""
    params = list(inspect.signature(fn).parameters.values())
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is p.empty for p in pos)
    accepted = -1 if any(p.kind is p.VAR_POSITIONAL for p in params) else len(pos)
    return required, accepted


def _protocol_arity(protocol) -> int:
    call = protocol.__call__
    return len([p for p in inspect.signature(call).parameters.values() if p.name != "self"])


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_hook_takes_the_arguments_of_its_protocol(name):
    spec = registered()[name]
    for hook, protocol in HOOKS.items():
        fn = spec.hook(hook)
        if fn is None:
            continue
        required, accepted = _positional(fn)
        n = _protocol_arity(protocol)
        assert required <= n and (accepted == -1 or accepted >= n), (name, hook, inspect.signature(fn))


def test_a_payload_has_every_field_the_payload_type_requires():
    doc: contracts.Doc = {
        "question_id": "q1", "group_id": "toy/1", "role": "q0", "group_size": 2, "prompt": "Yes?",
        "gold": "yes", "parser": "timeblind_yes_no", "videos": ["v.mp4"], "categories": ["motion"],
    }  # fmt: skip
    payload = make_payload(doc, "Yes")
    required = typing.get_type_hints(contracts.Payload)
    optional = contracts.Payload.__optional_keys__
    assert set(required) - optional <= set(payload)
    assert set(contracts.Reading.__annotations__) <= set(payload)
    repeated = make_payload(doc, ["Yes", "No"])
    assert [set(r) for r in repeated["repeats"]] == [set(typing.get_type_hints(contracts.Reading))] * 2


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


def test_every_registered_benchmark_passed_the_check():
    for spec in registered().values():
        contracts.check_hooks(spec)  # registration ran it; here it raises nothing either

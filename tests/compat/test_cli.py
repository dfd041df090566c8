"""Contract tests of ``compat/cli.py``: the lmms-eval flags we read and its sharding of docs over ranks, checked
against the installed lmms-eval."""

from __future__ import annotations

import inspect
import sys

import pytest

from temporal_tasks import compat
from tests.helpers.compat import LMMS_EVAL_CHANGED


def test_contract_cli_knows_the_flags_we_read(monkeypatch):
    from lmms_eval.__main__ import parse_eval_args

    values = {"model_args": "max_num_frames=8", "limit": "0.5", "offset": "3", "num_fewshot": "0", "baseline": "b"}
    argv = ["lmms-eval", "--model", "m", "--tasks", "t"]
    for name, value in values.items():
        argv += [compat.CLI_FLAGS[name], value]
    monkeypatch.setattr(sys, "argv", argv)
    try:
        _parser, args = parse_eval_args()
    except SystemExit as exc:
        pytest.fail(f"{LMMS_EVAL_CHANGED}: its CLI rejects one of {sorted(compat.CLI_FLAGS.values())} ({exc})")
    for name, value in values.items():
        parsed = getattr(args, name, None)
        same = parsed == value if name in ("model_args", "baseline") else float(parsed) == float(value)
        assert same, f"{LMMS_EVAL_CHANGED}: {compat.CLI_FLAGS[name]} {value} now parses as {parsed!r}"
        assert compat.command_line_setting(argv, name) == value
        assert compat.command_line_setting([f"{compat.CLI_FLAGS[name]}={value}"], name) == value


def test_contract_sharding_matches_lmms_eval():
    from lmms_eval.api.task import Task
    from lmms_eval.evaluator_utils import get_sample_size
    from lmms_eval.utils import create_iterator

    assert "instances[:og_limit]" in inspect.getsource(Task.build_all_requests), (
        f"{LMMS_EVAL_CHANGED}: build_all_requests no longer cuts the rank's requests to the limit"
    )
    docs = list(range(23))
    fake = type("FakeTask", (), {"eval_docs": docs})
    for world in (1, 2, 3):
        for limit in (None, 0, -1, 5, 0.3, 100):
            for offset in (0, 3):
                n = get_sample_size(fake, limit)
                for rank in range(world):
                    expected = list(
                        create_iterator(iter(docs), rank=rank, world_size=world, limit=n or None, offset=offset)
                    )[:n]
                    assert compat.shard(docs, limit, offset, rank, world) == expected, (
                        f"{LMMS_EVAL_CHANGED}: its sharding of docs over ranks changed (world {world}, "
                        f"limit {limit}, offset {offset}, rank {rank}: compat.shard)"
                    )


def test_contract_lmms_eval_accepts_reads_its_parser():
    assert compat.lmms_eval_accepts("--limit"), f"{LMMS_EVAL_CHANGED}: no --limit, or its parser cannot be asked"
    assert not compat.lmms_eval_accepts("--no_such_flag_of_lmms_eval")
    assert compat.missing_flag("--limit") is None
    message = compat.missing_flag("--no_such_flag_of_lmms_eval")
    assert message is not None and "--no_such_flag_of_lmms_eval" in message and "lmms-eval" in message


@pytest.mark.parametrize("flag", sorted(compat.FLAGS_SINCE))
def test_a_flag_missing_from_this_lmms_eval_is_named_with_its_release(flag):
    """Each flag of FLAGS_SINCE: taken, or missing with a message naming the flag and the release that has it."""
    message = compat.missing_flag(flag)
    assert message is None or (flag in message and compat.FLAGS_SINCE[flag] in message), message

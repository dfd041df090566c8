"""The runner of the lmms-eval runs (``tests/helpers/lmms_runner.py``, ``tests/helpers/forkserver.py``): a child
forked from the warm parent is the process a fresh interpreter would be (working directory, environment, argv,
sys.path, exit status, output, lmms-eval's import-time read of LM_HARNESS_CACHE_PATH)."""

from __future__ import annotations

import json
import os
import sys

from tests.helpers.lmms_runner import BASE_ENV, forkable, run_subprocess

PROBE = """
import json, os, sys
import lmms_eval.caching.cache as cache
print(json.dumps({"cwd": os.getcwd(), "argv": sys.argv[1:], "probe": os.environ.get("PROBE"),
                  "unset": "PROBE_UNSET" in os.environ, "path0": sys.path[0], "cache": cache.PATH}))
print("to stderr", file=sys.stderr)
sys.exit(int(sys.argv[1]))
"""


def test_forked_child_is_the_fresh_process(lmms_launch, tmp_path, monkeypatch):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    cwd = tmp_path / "work"
    cwd.mkdir()
    monkeypatch.setenv("PROBE_UNSET", "parent only")  # in the parent's environment, not in the run's
    env = {k: v for k, v in os.environ.items() if k != "PROBE_UNSET"}
    env.update(BASE_ENV, PROBE="child", LM_HARNESS_CACHE_PATH=str(tmp_path / "requests"))
    cmd = [sys.executable, str(script), "3", "--flag"]
    assert forkable(cmd, env)
    assert not forkable(cmd, {**env, "PYTHONPATH": "/elsewhere"})  # interpreter settings: a fresh interpreter
    assert not forkable([sys.executable, "-m", "torch.distributed.run", "-m", "lmms_eval"], env)
    forked = lmms_launch(cmd, env, cwd, 300)
    fresh = run_subprocess(cmd, env, cwd, 300)
    assert (forked.returncode, forked.stderr) == (fresh.returncode, fresh.stderr) == (3, "to stderr\n")
    got, want = json.loads(forked.stdout), json.loads(fresh.stdout)
    assert got == want
    assert got == {"cwd": str(cwd), "argv": ["3", "--flag"], "probe": "child", "unset": False,
                   "path0": str(tmp_path), "cache": str(tmp_path / "requests")}  # fmt: skip
    assert not list(cwd.iterdir())  # the output files live outside the run's folder

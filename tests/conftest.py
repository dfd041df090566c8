"""Shared test fixtures: the generated benchmark copies and a runner for the real lmms-eval CLI."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from filelock import FileLock

from temporal_tasks.base.run_state import reset
from temporal_tasks.data.fixtures import write_fixtures
from tests.helpers.hypothesis_profiles import load as load_hypothesis_profile
from tests.helpers.lmms_runner import BASE_ENV, ForkServer, forkable, run_subprocess, runner_mode

load_hypothesis_profile()  # TEMPORAL_TASKS_HYPOTHESIS=deep: full fuzzing budgets (tests/helpers/hypothesis_profiles.py)


@pytest.fixture(autouse=True)
def fresh_run_state():
    """Each test starts as a new evaluation would (lmms-eval's entry points reset the same state)."""
    reset()
    yield
    reset()


def session_dir(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this session sees (the workers' base folders are in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder ``name`` of the session folder, filled by ``make(folder)`` once per session: by the first
    pytest-xdist worker that asks (the others wait for it and read it)."""
    shared = session_dir(tmp_path_factory)
    work, done = shared / name, shared / f"{name}.done"
    with FileLock(str(shared / f"{name}.lock")):
        if not done.is_file():
            shutil.rmtree(work, ignore_errors=True)  # a worker that died while making it
            work.mkdir()
            make(work)
            done.touch()
    return work


@pytest.fixture(scope="session")
def fixture_root(tmp_path_factory) -> Path:
    """Every benchmark fixture, written once per session for all workers (the TEMPORAL_TASKS_DATA_DIR of CLI runs);
    tests only read it."""
    shared = session_dir(tmp_path_factory)
    root = shared / "fixture_data"
    with FileLock(str(shared / "fixture_data.lock")):
        if not (shared / "fixture_data.complete").is_file():
            shutil.rmtree(root, ignore_errors=True)  # a worker that died while writing
            root.mkdir()
            write_fixtures(root)
            (shared / "fixture_data.complete").touch()
    return root


@pytest.fixture(scope="session")
def lmms_tasks_list(tmp_path_factory) -> subprocess.CompletedProcess:
    """``python -m lmms_eval tasks list`` in a fresh interpreter (only the ``.pth`` hook can show it our tasks), run
    once per session for all workers."""
    shared = session_dir(tmp_path_factory)
    record = shared / "lmms_tasks_list.json"
    with FileLock(str(shared / "lmms_tasks_list.lock")):
        if not record.is_file():
            cmd = [sys.executable, "-m", "lmms_eval", "tasks", "list"]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            record.write_text(json.dumps([proc.returncode, proc.stdout, proc.stderr]))
    code, stdout, stderr = json.loads(record.read_text())
    return subprocess.CompletedProcess(["lmms_eval", "tasks", "list"], code, stdout, stderr)


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory) -> Path:
    """A session-wide TEMPORAL_TASKS_CACHE_DIR."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def offline_env(fixture_root, cache_root, monkeypatch) -> Path:
    """Point the data layer at the fixtures (in-process tests)."""
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(cache_root))
    monkeypatch.delenv("TEMPORAL_TASKS_PARSER", raising=False)
    return fixture_root


@dataclass
class Run:
    """Outcome of one lmms-eval CLI run."""

    returncode: int
    output: str
    results: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)  # lines with the full payload under every key it fed
    raw_samples: dict = field(default_factory=dict)  # the lines as written (lean: same_as references)
    out: Path | None = None  # the run's folder (its results under out / "results")

    def metrics(self, task: str) -> dict[str, float]:
        """``{metric: value}`` of one task, without lmms-eval's ``,none`` filter suffix."""
        raw = self.results["results"][task]
        return {k.split(",")[0]: v for k, v in raw.items() if k.endswith(",none") and "_stderr" not in k}


def expand_line(line: dict) -> dict:
    """A sample line with its full payload (answer included) under every metric key it fed."""
    from temporal_tasks.tools.samples import fed_keys, line_payload

    payload = line_payload(line)
    if payload is None:
        return line
    return {**line, **{key: payload for key in fed_keys(line)}}


def write_responses(path: Path, answers: dict[str, str] | list[dict]) -> Path:
    """A replay file from ``{question_id: response}``, or from its lines (``{"task"?, "question_id", "response"}``)."""
    lines = answers if isinstance(answers, list) else [{"question_id": q, "response": t} for q, t in answers.items()]
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    return path


@pytest.fixture(scope="session")
def lmms_launch(tmp_path_factory):
    """How ``python -m lmms_eval`` is started this session (``tests/helpers/lmms_runner.py``): ``launch(cmd, env, cwd,
    timeout) -> Finished``. A launcher (several processes) always gets a fresh interpreter."""
    server = ForkServer(tmp_path_factory.mktemp("forkserver") / "server.log") if runner_mode() == "fork" else None

    def launch(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float):
        if server is not None and forkable(cmd, env):
            return server.run(cmd, env, cwd, timeout)
        return run_subprocess(cmd, env, cwd, timeout)

    yield launch
    if server is not None:
        server.close()


def run_lmms_eval(
    out: Path,
    tasks: str,
    *,
    launch,
    fixture_root: Path,
    cache_root: Path,
    responses: dict[str, str] | list[dict] | Path | None = None,
    model: str = "temporal_replay",
    model_args: str | None = None,
    env: dict[str, str] | None = None,
    args: list[str] | tuple[str, ...] = (),
    data_dir: Path | None = None,
    expect_ok: bool = True,
    timeout: int = 900,
    verbosity: str = "DEBUG",
    launcher: list[str] | None = None,
) -> Run:
    """``python -m lmms_eval`` writing into ``out`` (``--verbosity DEBUG`` so failures exit non-zero); its outputs."""
    out.mkdir()
    if isinstance(responses, dict | list):
        responses = write_responses(out / "responses.jsonl", responses)
    if model_args is None:
        model_args = f"responses={responses}" if responses is not None else ""
    cmd = ["--model", model, "--tasks", tasks, "--batch_size", "1", "--output_path", str(out / "results"),
           "--log_samples", "--verbosity", verbosity, *args]  # fmt: skip
    if model_args:
        cmd[2:2] = ["--model_args", model_args]
    # launcher: e.g. ["-m", "torch.distributed.run", "--nproc_per_node", "2"] for several processes
    cmd = [sys.executable, *(launcher or []), "-m", "lmms_eval", *cmd]
    full_env = dict(os.environ)
    full_env.update(
        TEMPORAL_TASKS_DATA_DIR=str(data_dir or fixture_root), TEMPORAL_TASKS_CACHE_DIR=str(cache_root),
        **BASE_ENV,
    )  # fmt: skip
    full_env.pop("TEMPORAL_TASKS_PARSER", None)
    full_env.update(env or {})
    proc = launch(cmd, full_env, out, timeout)
    return read_run(out, proc.returncode, proc.stdout + proc.stderr, expect_ok)


def read_run(out: Path, returncode: int, output: str, expect_ok: bool = True) -> Run:
    """The :class:`Run` of a finished lmms-eval run in ``out``; with ``expect_ok``, it must have succeeded."""
    run_ = Run(returncode, output, out=out)
    found = sorted((out / "results").rglob("*_results.json"))
    if found:
        run_.results = json.loads(found[-1].read_text())
        for sample_file in (out / "results").rglob("*_samples_*.jsonl"):
            task = sample_file.stem.split("_samples_", 1)[1]
            lines = [json.loads(x) for x in sample_file.read_text().splitlines() if x.strip()]
            run_.raw_samples[task] = lines
            run_.samples[task] = [expand_line(line) for line in lines]
    if expect_ok:
        assert returncode == 0 and found, f"lmms-eval failed ({returncode}):\n{run_.output[-6000:]}"
    return run_


@pytest.fixture
def lmms_eval(fixture_root, cache_root, tmp_path, lmms_launch):
    """``lmms_eval(tasks, *, responses=, model=, model_args=, env=, args=, data_dir=, expect_ok=, timeout=,
    verbosity=, launcher=) -> Run``: a fresh ``python -m lmms_eval`` run in ``tmp_path/run<n>`` (see
    :func:`run_lmms_eval`)."""
    counter = {"n": 0}

    def run(tasks: str, **kwargs) -> Run:
        counter["n"] += 1
        where = dict(launch=lmms_launch, fixture_root=fixture_root, cache_root=cache_root)
        return run_lmms_eval(tmp_path / f"run{counter['n']}", tasks, **where, **kwargs)

    return run


def _key_part(value):
    """A run argument as part of a memo key: answers by content, a responses file by path and content."""
    if isinstance(value, dict):
        return sorted((str(k), _key_part(v)) for k, v in value.items())
    if isinstance(value, Path):
        return [str(value), hashlib.sha256(value.read_bytes()).hexdigest() if value.is_file() else None]
    if isinstance(value, list | tuple):
        return [_key_part(v) for v in value]
    return value


@pytest.fixture(scope="session")
def shared_lmms_eval(fixture_root, cache_root, lmms_launch, tmp_path_factory):
    """``lmms_eval`` for runs that several tests read and none changes: one run per distinct call (every argument,
    answers by content) for the whole session, whichever pytest-xdist worker asks first; the others wait for it and
    read it. Each caller gets its own :class:`Run` read from the run's folder."""
    root = session_dir(tmp_path_factory) / "shared_runs"
    root.mkdir(exist_ok=True)

    def run(tasks: str, *, expect_ok: bool = True, **kwargs) -> Run:
        key = json.dumps([tasks, _key_part(kwargs)], sort_keys=True, default=str)
        digest = hashlib.sha256(key.encode()).hexdigest()[:20]
        out, meta = root / digest, root / f"{digest}.json"
        with FileLock(str(root / f"{digest}.lock")):
            if not meta.is_file():
                shutil.rmtree(out, ignore_errors=True)  # a worker that died during the run
                where = dict(launch=lmms_launch, fixture_root=fixture_root, cache_root=cache_root)
                done = run_lmms_eval(out, tasks, **where, **kwargs, expect_ok=False)
                meta.write_text(json.dumps({"key": key, "returncode": done.returncode, "output": done.output}))
        record = json.loads(meta.read_text())
        return read_run(out, record["returncode"], record["output"], expect_ok)

    return run


@pytest.fixture
def warnings_seen():
    """Warning lines our loguru logger writes while the test runs."""
    from temporal_tasks.base.log import logger

    lines: list[str] = []
    sink = logger.add(lambda msg: lines.append(str(msg)), level="WARNING", format="{message}")
    yield lines
    logger.remove(sink)

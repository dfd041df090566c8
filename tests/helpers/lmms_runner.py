"""How the tests launch ``python -m lmms_eval``: a fresh interpreter, or a child forked from a warm parent.

``TEMPORAL_TASKS_TEST_RUNNER`` chooses, for the whole session:

* ``fork`` (default): ``tests/helpers/forkserver.py`` imports torch and lmms-eval once per pytest worker, then forks
  one child per run. The child is a separate process with the run's environment, working directory, argv, exit
  status and output files, so every run is isolated as a subprocess is; it only skips the import (~10 s of the
  ~15 s a replay run costs on two cores).
* ``subprocess``: ``python -m lmms_eval`` in a fresh interpreter, every time (what CI did before issue 29).

Runs with a launcher (``torch.distributed.run``: several processes) are always a fresh interpreter, and so is
everything a test starts with ``subprocess`` itself (entry points, the ``.pth`` hook, ``lm_eval``).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

ENV_RUNNER = "TEMPORAL_TASKS_TEST_RUNNER"
MODES = ("fork", "subprocess")
SERVER = Path(__file__).with_name("forkserver.py")
# what every test run of lmms-eval shares: the warm parent is started with it (read at import by the libraries)
BASE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def runner_mode() -> str:
    """The session's launch mode, from ``TEMPORAL_TASKS_TEST_RUNNER`` (default ``fork``)."""
    mode = os.environ.get(ENV_RUNNER, "fork") or "fork"
    if mode not in MODES:
        raise ValueError(f"{ENV_RUNNER}={mode!r}: use one of {', '.join(MODES)}")
    return mode


def forkable(cmd: list[str], env: dict[str, str]) -> bool:
    """``python -m lmms_eval ...`` or ``python script.py ...`` (not a launcher), with the interpreter settings of
    this process (``PYTHONPATH`` and the other ``PYTHON*`` variables act at interpreter start): what a warm parent
    can run."""
    startup = {k for k in {*env, *os.environ} if k.startswith("PYTHON")}
    if any(env.get(k) != os.environ.get(k) for k in startup):
        return False
    return cmd[0] == sys.executable and (cmd[1:3] == ["-m", "lmms_eval"] or cmd[1].endswith(".py"))


@dataclass
class Finished:
    """A finished ``python -m lmms_eval``."""

    returncode: int
    stdout: str
    stderr: str


def run_subprocess(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Finished:
    """``cmd`` in a fresh interpreter."""
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return Finished(proc.returncode, proc.stdout, proc.stderr)


class ForkServer:
    """One warm ``tests/helpers/forkserver.py`` parent; :meth:`run` is ``python -m lmms_eval <argv>`` forked from it."""

    def __init__(self, log: Path) -> None:
        self._log_path = log
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue[str] = queue.Queue()
        self._count = 0

    def _start(self, env: dict[str, str]) -> None:
        self._log = open(self._log_path, "a", encoding="utf-8")  # noqa: SIM115 - open for the server's life
        self._proc = subprocess.Popen(
            [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            text=True, env=env, cwd=self._log_path.parent,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        self._expect("ready", 600)

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put("")  # the server ended

    def _expect(self, key: str, timeout: float):
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise subprocess.TimeoutExpired("forkserver", timeout) from None
        if not line:
            raise RuntimeError(f"the lmms-eval fork server ended; its log: {self._log_path}")
        return json.loads(line)[key]

    def run(self, cmd: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Finished:
        """``cmd`` (``[python, "-m", "lmms_eval", ...]`` or ``[python, "script.py", ...]``) as a child of the warm
        parent."""
        assert forkable(cmd, env), cmd
        base = {**dict(os.environ), **BASE_ENV}
        if self._proc is None or self._proc.poll() is not None:
            self._start(base)
        self._count += 1
        out = self._log_path.parent / f"run{self._count}.stdout"  # outside cwd: tests list what a run wrote
        err = out.with_suffix(".stderr")
        req = {"env": env, "cwd": str(cwd), "stdout": str(out), "stderr": str(err)}
        if cmd[1] == "-m":
            req["argv"] = cmd[3:]
        else:
            req.update(script=cmd[1], argv=cmd[2:])
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(req) + "\n")
        self._proc.stdin.flush()
        pid = self._expect("pid", 120)
        try:
            rc = self._expect("rc", timeout)
        except subprocess.TimeoutExpired:
            os.killpg(pid, signal.SIGKILL)
            self._expect("rc", 60)
            raise
        stdout, stderr = out.read_text(errors="replace"), err.read_text(errors="replace")
        out.unlink()
        err.unlink()
        return Finished(rc, stdout, stderr)

    def close(self) -> None:
        """Stop the parent (its children have all ended)."""
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        if self._proc is not None:
            self._log.close()

"""A warm parent for ``python -m lmms_eval`` runs: imports lmms-eval once, then forks one child per run.

Each run is still its own process (fresh module state, its own exit status, its own stdout/stderr files),
exactly what ``python -m lmms_eval ...`` would be, minus the ~10 s of importing torch and lmms-eval (and the modules
every run imports on first use: :func:`_warm_imports`) and the ~5 s of indexing lmms-eval's task folder and ours
(:func:`_index_task_folders_once`). The only other thing the child
inherits from the parent is what the import did; the one import-time read of the
environment on lmms-eval's path (``LM_HARNESS_CACHE_PATH`` in ``lmms_eval.caching.cache``) is redone in the
child after its environment is set, and the parent is started with the environment every run shares
(offline Hugging Face, no tokenizer threads).

A request may name a ``script`` instead (``python script.py <argv>``: a plain script on lmms-eval's Python API).

Protocol (JSON lines): the parent reads ``{"argv", "env", "cwd", "stdout", "stderr", "script"?}`` on stdin and answers
``{"pid": ...}`` when the child starts, then ``{"rc": ...}`` when it ends. Used by
``tests/helpers/lmms_runner.py``.
"""

from __future__ import annotations

import json
import os
import sys


def _child(req: dict) -> int:
    """Become ``python -m lmms_eval <argv>`` in ``cwd`` with ``env``; return its exit status."""
    import atexit
    import runpy
    import threading
    import traceback

    os.setpgid(0, 0)  # the runner kills the whole group on a timeout (lmms-eval may start workers)
    for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # sys.stdout/sys.stderr (and every loguru sink made at import) write to fds 1 and 2: now the run's files
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    _reread_import_time_env()
    script = req.get("script")
    # `python -m` puts the working directory first on sys.path (runpy sets argv[0] to the module's file);
    # `python script.py` puts the script's folder first
    sys.argv = [script or "-m", *req["argv"]]
    sys.path[0] = os.path.dirname(os.path.abspath(script)) if script else req["cwd"]
    code = 0
    try:
        if script:
            runpy.run_path(script, run_name="__main__")
        else:
            runpy.run_module("lmms_eval", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
        traceback.print_exc()
        code = 1
    # interpreter shutdown, in its order: wait for non-daemon threads, atexit, flush
    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    return code


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message"): printed, status 1
    return 1


def _reread_import_time_env() -> None:
    cache = sys.modules.get("lmms_eval.caching.cache")
    if cache is not None:
        override = os.getenv("LM_HARNESS_CACHE_PATH")
        cache.OVERRIDE_PATH = override
        cache.PATH = override if override else f"{cache.MODULE_DIR}/.cache"


def _index_task_folders_once() -> None:
    """Index lmms-eval's own task folder and ours once, in the parent.

    Every TaskManager walks and parses the YAML files of each task folder: the ~1,000 under ``lmms_eval/tasks``
    (about 3 s of CPU a run) and our ~40, whose includes make about 100 parses (about 2 s). The first is the
    installed package; ours does not change during a session either, and a child checks that it did not (every
    file's size and mtime). So each child gets a copy of the parent's index of both; every other folder (a test's
    ``--include_path``, the toy) is indexed by lmms-eval itself in the child, through our TaskManager patch, as in
    any run.
    """
    import copy
    import functools

    import lmms_eval.tasks
    from lmms_eval.tasks import TaskManager

    import temporal_tasks

    builtin = os.path.realpath(os.path.dirname(os.path.abspath(lmms_eval.tasks.__file__)))
    ours = os.path.realpath(temporal_tasks.tasks_dir())
    original = TaskManager._get_task_and_group
    memo: dict[str, tuple[object, dict]] = {}

    def state(folder: str) -> object:
        if folder == builtin:
            return None  # the installed package: never edited during a session
        return sorted(
            (os.path.join(d, f), st.st_size, st.st_mtime_ns)
            for d, _, files in os.walk(folder)
            for f in files
            for st in [os.stat(os.path.join(d, f))]
        )

    @functools.wraps(original)
    def _get_task_and_group(self, task_dir: str):
        folder = os.path.realpath(task_dir)
        if folder not in (builtin, ours):
            return original(self, task_dir)
        now = state(folder)
        if folder not in memo or memo[folder][0] != now:
            memo[folder] = (now, original(self, task_dir))
        return copy.deepcopy(memo[folder][1])

    TaskManager._get_task_and_group = _get_task_and_group
    TaskManager()  # fills the index here, before any fork


# What every run imports on first use and nothing more: lmms-eval's own imports inside its functions (evaluate()
# and the metrics it aggregates with) and our task code, which lmms-eval imports through the YAMLs' !function. No
# module of these reads the environment at import (a test checks ours: tests/architecture/test_environment.py).
WARM_MODULES = ("lmms_eval.models.model_utils.gen_metrics", "lmms_eval.tasks.coco_cap_chair.utils")
WARM_PACKAGES = ("temporal_tasks.harness", "temporal_tasks.scoring", "temporal_tasks.benchmarks")


def _warm_imports() -> None:
    import importlib
    import pkgutil

    for name in WARM_MODULES:
        importlib.import_module(name)
    for package in WARM_PACKAGES:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, f"{package}."):
            importlib.import_module(info.name)


def main() -> None:
    """Import lmms-eval, then serve run requests until stdin closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything the imports print goes to our stderr, never into the protocol
    import lmms_eval.__main__  # noqa: F401 - the warm import (torch, accelerate, the task manager, our hook)
    import lmms_eval.cli.dispatch  # noqa: F401
    import lmms_eval.models  # noqa: F401 - entry points (our replay model)

    _warm_imports()
    _index_task_folders_once()

    proto.write(json.dumps({"ready": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _child(req)
            finally:
                os._exit(code)
        proto.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        proto.write(json.dumps({"rc": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    main()

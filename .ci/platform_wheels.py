"""Every direct dependency (pyproject.toml, extras included) has a wheel for Linux aarch64 and macOS arm64.

For each target platform, each requirement whose environment marker holds there is fetched with
``pip download --no-deps --only-binary=:all: --platform TAG --python-version 3.11`` into a scratch folder;
a pure-Python wheel (py3-none-any) counts. Prints one table row per requirement and exits 1 if any has none.
Needs PyPI, so it is no test: .ci/wheel_check runs it, outside pytest. Usage (Python >= 3.11, `packaging`
installed): python .ci/platform_wheels.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib
from packaging.markers import default_environment
from packaging.requirements import Requirement

PYTHON = "3.11"
# Per target: the platform tags pip is given (a Linux machine with glibc 2.28 takes every older manylinux wheel
# too, but `pip download --platform manylinux_2_28_aarch64` alone matches only that exact tag; for macOS pip
# adds the older versions itself), and the marker values of such a machine (pip would use the running one's).
# macOS 14 (Darwin 23) is the oldest decord2 supports.
TARGETS = {
    "manylinux_2_28_aarch64": (
        [f"manylinux_2_{glibc}_aarch64" for glibc in range(28, 16, -1)] + ["manylinux2014_aarch64"],
        {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64", "platform_release": ""},
    ),
    "macosx_14_0_arm64": (
        ["macosx_14_0_arm64"],
        {
            "sys_platform": "darwin",
            "platform_system": "Darwin",
            "platform_machine": "arm64",
            "platform_release": "23.0",
        },
    ),
}


def requirements(pyproject: Path) -> list[str]:
    """The project's dependencies, then every extra's, each once, in file order."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    found = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        found += extra
    return list(dict.fromkeys(found))


def marker_environment(target: dict[str, str]) -> dict[str, str]:
    """This interpreter's marker values with the target platform's and Python 3.11's in their place."""
    env = default_environment()
    env.update(python_version=PYTHON, python_full_version=f"{PYTHON}.0")
    env.update(target)
    return env


def download(requirement: Requirement, platforms: list[str], folder: Path) -> str | None:
    """The wheel pip finds for ``requirement`` on ``platforms`` (its file name, fetched into ``folder``), or None."""
    spec = f"{requirement.name}{''.join(f'[{e}]' for e in sorted(requirement.extras))}{requirement.specifier}"
    tags = [arg for tag in platforms for arg in ("--platform", tag)]
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", *tags,
           "--python-version", PYTHON, "-d", str(folder), spec]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"{spec} on {platforms[0]}: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return ", ".join(sorted(p.name for p in folder.iterdir()))


def main() -> int:
    reqs = [Requirement(r) for r in requirements(Path(__file__).resolve().parents[1] / "pyproject.toml")]
    rows: dict[str, dict[str, str]] = {}  # requirement (no marker) -> platform -> wheel
    missing = []
    with tempfile.TemporaryDirectory() as scratch:
        for platform, (tags, target) in TARGETS.items():
            env = marker_environment(target)
            for i, req in enumerate(reqs):
                if req.marker is not None and not req.marker.evaluate(env):
                    continue  # another platform's line (decord2 has one per platform)
                wheel = download(req, tags, Path(scratch) / platform / str(i))
                if wheel is None:
                    missing.append(f"{req.name} on {platform}")
                rows.setdefault(str(req).split(";")[0], {})[platform] = wheel or "**none**"
    print(f"| requirement | {' | '.join(TARGETS)} |\n|---|{'---|' * len(TARGETS)}")
    for name, cells in rows.items():
        print(f"| {name} | {' | '.join(cells.get(platform, 'not required') for platform in TARGETS)} |")
    if missing:
        print("no wheel for: " + "; ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

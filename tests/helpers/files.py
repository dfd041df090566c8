"""Sample and export files, read and written as lmms-eval and the official scorers do."""

from __future__ import annotations

import json
from pathlib import Path


def read_jsonl(path: Path) -> list[dict]:
    """The objects of a JSON-lines file (blank lines skipped)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_samples_file(path: Path, payloads: list[dict], docs: list[dict] | None = None) -> Path:
    """A ``--log_samples`` file of one line per payload (under a metric key ``some_metric``), with its doc."""
    with open(path, "w", encoding="utf-8") as fh:
        for i, p in enumerate(payloads):
            fh.write(json.dumps({"doc_id": i, "doc": (docs or [{}] * len(payloads))[i], "some_metric": p}) + "\n")
    return path

"""ToyBench's loader, parser and process_docs/process_results; its metrics are declared in its spec.

Written against the typed contracts (:mod:`temporal_tasks.api.contracts`), checked by mypy in CI: the loader
yields ``Doc``s; ``process_results`` maps metric keys to the kit's payloads (plain dicts holding a ``Payload``'s
fields, and any fields of the benchmark's own).
"""

from __future__ import annotations

from temporal_tasks.api import Doc
from temporal_tasks.harness import kit
from toybench import SPEC

NAME = "toybench"
FILE = "questions.jsonl"
FIELDS = ("id", "video", "pair", "role", "question", "answer", "category")
ROLES = ("q0", "q1")


def _official_yes_no(text: str) -> str | None:
    """The toy's "official" rule: the first character, Y or N."""
    first = kit.official_first_char("YN")(text)
    return {"Y": "yes", "N": "no"}.get(first or "")


YES_NO = kit.register_parser(kit.Parser("toybench_yes_no", ("yes", "no"), kit.robust_yes_no, _official_yes_no))


def load_docs(data: kit.BenchmarkData | None = None) -> list[Doc]:
    """Read and validate ``questions.jsonl``: two questions (q0, q1) per video, every video present."""
    data = data or kit.benchmark_data(NAME, needs=(FILE, "videos/*"))
    path = data.file(FILE)
    rows = kit.read_jsonl(path)
    if not rows:
        raise kit.DataError(f"{path}: no questions. Fix: re-create it (`temporal-tasks fixtures DIR` writes one).")
    for n, row in enumerate(rows, 1):
        kit.require_fields(row, FIELDS, f"{path} row {n}")
        if row["role"] not in ROLES or row["answer"] not in ("yes", "no"):
            raise kit.DataError(
                f"{path} row {n}: role must be q0/q1 and answer yes/no, not {row['role']!r}/{row['answer']!r}."
            )
    kit.check_unique((str(r["id"]) for r in rows), str(path))
    kit.check_files_exist(
        {data.root / r["video"] for r in rows}, f"{NAME} ({path})", f"copy the videos/ folder into {data.root}"
    )
    return [
        {
            "question_id": str(r["id"]),
            "group_id": f"{NAME}/{r['pair']}",
            "role": r["role"],
            "group_size": 2,
            "prompt": f"{r['question']}\nAnswer Yes or No.",
            "gold": r["answer"],
            "parser": YES_NO.name,
            "options": list(kit.YES_NO_OPTIONS),
            "videos": [str(data.root / r["video"])],
            "categories": [r["category"]],
        }
        for r in rows
    ]


def process_docs(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of ``toybench_pair``."""
    return kit.docs_dataset(load_docs)


def process_results(doc: Doc, results: list) -> dict[str, dict]:
    """The question's payload under the keys of its metric list (its category's included)."""
    payload = kit.make_payload(doc, kit.answers(results))
    return kit.results_for(payload, SPEC.metric_lists[0], payload["categories"])

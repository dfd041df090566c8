"""The benchmarks, one package each: its spec (``SPEC``, in its ``__init__``), loader, task code and hooks. They are
registered through the entry-point group ``temporal_tasks.benchmarks`` (``pyproject.toml``), as any other package's."""

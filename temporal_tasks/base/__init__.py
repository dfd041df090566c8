"""The base every other part stands on: errors, the settings (every ``TEMPORAL_TASKS_*`` variable, read in
:mod:`.settings` only), one atomic file write and the cache folder, the logger, the masking of secrets in logs, and
the one run state of an evaluation."""

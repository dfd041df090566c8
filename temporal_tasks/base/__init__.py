"""The base every other part stands on: errors, one atomic file write and the cache folder, the logger, the masking
of secrets in logs, and the one run state of an evaluation."""

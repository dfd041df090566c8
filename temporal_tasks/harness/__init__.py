"""The code lmms-eval runs: per-question hooks (:mod:`.doc_hooks`), ``process_docs`` (:mod:`.task_docs`), our task
configs (:mod:`.task_configs`), the provenance record, the shortcut variants, our two models (:mod:`.replay`,
:mod:`.first_token_prob`; :mod:`.models` is their ``lmms_eval.models`` entry point), the import hook that shows
lmms-eval our tasks (:mod:`.hook`), the lm-evaluation-harness controls, and the benchmark author's kit (:mod:`.kit`).

Kept free of imports: the ``.pth`` hook imports :mod:`.hook` at every interpreter start.
"""

"""Every reach into lmms-eval 0.7.3's internals, fenced in one package.

lmms-eval gives a task no handle on the run it is part of: not the model, not ``--limit``/``--offset``,
not the number of questions selected; it has no task entry point; and what it hands a model and a task
is positional. Every assumption about its internals lives here, and the ``test_contract_*`` tests in
``tests/compat/`` check each one against the installed lmms-eval, so an upgrade that breaks one
fails there, by name, and not as a silently wrong N, an unchecked subset or a misread answer.

Assumptions (lmms-eval 0.7.3; module: where ours lives):

- ``evaluator.simple_evaluate(model, model_args, ..., limit, offset)`` builds the model instance into its
  local ``lm`` (or takes ``model`` when it is an instance) *before* it builds the tasks (``process_docs``).
  (stack)
- ``evaluator.evaluate(lm, task_dict, limit, offset, ...)`` holds the instance as ``lm``; it replaces
  ``limit`` by ``get_sample_size(task, limit)`` (an int count or None) before it builds the requests. (stack)
- The aggregations run inside ``TaskOutput.calculate_aggregate_metric(self, ...)``, whose ``self.task``
  is the task (``eval_docs``: the processed dataset) and ``self.sample_metrics`` the gathered payloads
  of all ranks, inside ``evaluate``. (stack)
- The video models keep their frame count as an instance attribute named like their ``__init__``
  argument (``self.max_num_frames``, ``self.max_frames_num``, ...; :data:`FRAME_ARGS`). (stack)
- ``__main__.cli_evaluate`` holds the entries of a ``--config`` file as ``args_list`` (one Namespace each,
  ``.config`` the file) and exports every entry's ``env:`` before the first entry runs. (stack)
- ``Task.build_all_requests`` returns early on a ``--cache_requests`` hit, before it puts ``doc_to_visual``
  back into the cached requests (its own FIXME): :func:`restore_cached_visuals` does that for our tasks. (stack)
- lmms-eval never calls a request's ``doc_to_visual`` itself for a simple model (``evaluate`` and the response
  cache hand the request to the model); the model does, and no lmms-eval model class has an attribute
  ``reads_visuals``: :func:`model_reads_visuals` reads that declaration of ours from the instance, True when
  absent. (stack)
- The CLI is ``lmms-eval`` / ``python -m lmms_eval`` (``sys.argv[0]``), or our ``temporal-tasks`` wrapper. (stack)
- ``ConfigurableTask.download`` runs ``process_docs``; the task holds its config as ``self._config``, with
  ``task`` and ``metadata`` (written to the results JSON by ``dump_config``): :func:`building_task_config`,
  :func:`task_config_name`, :func:`add_task_metadata`. (stack, tasks)
- ``tasks.TaskManager.initialize_tasks(self, include_path=None, include_defaults=True)`` indexes the built-in
  folder, then ``include_path`` (a string or a list); earlier directories win a name clash:
  :func:`patch_task_manager`. (tasks)
- ``utils.load_yaml_config`` merges ``include:`` shallowly: the file's keys win, and the first of several
  includes wins: :func:`merge_includes`. (tasks)
- ``evaluator.simple_evaluate`` and ``evaluator.evaluate`` are module attributes that ``__main__.cli_evaluate``
  (and scripts) call through the module, and ``simple_evaluate`` calls ``evaluate`` after building the tasks:
  :func:`wrap_evaluation_entry_points` starts a fresh run state at each evaluation. (tasks)
- ``__main__.parse_eval_args`` spells the flags :data:`CLI_FLAGS` (``--model_args``, ``--limit``, ``--offset``,
  ``--num_fewshot``, ``--baseline``), read by :func:`command_line_setting` and :func:`run_baseline`. (cli)
- A rank gets ``islice(docs, rank + offset, offset + count, world_size)`` (``utils.create_iterator``), ``count``
  from ``evaluator_utils.get_sample_size`` (a fraction of the docs for ``0 < limit < 1``), cut to
  ``instances[:count]``: :func:`shard`. (cli)
- ``ConfigurableTask.construct_requests`` builds ``generate_until`` arguments as ``(context, gen_kwargs,
  doc_to_visual, doc_id, task, split)`` and ``loglikelihood``/``multiple_choice`` ones as ``(context,
  continuation, doc_to_visual, doc_id, task, split)``: :func:`generate_args`, :func:`loglikelihood_args`,
  :func:`request_context`, :func:`request_visuals`, :func:`request_doc`. (requests)
- The launchers (torchrun, ``accelerate launch``) give each process ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and
  ``LOCAL_WORLD_SIZE``: the only environment variables the package reads outside its settings
  (:func:`temporal_tasks.compat.run_context.launcher`). (run_context)
- ``models.model_utils.media_encoder._build_cache_key`` is the module attribute ``encode_image_to_base64`` keys its
  cache with (``("obj", id(image), ...)`` for a PIL image, the defect), and ``protocol.fetch_video`` the one
  ``ChatMessages.to_openai_messages`` decodes a video with: :func:`~temporal_tasks.compat.encode_cache.
  repair_encode_cache` probes the method with a stand-in decoder and repairs the key only where frames repeat.
  (encode_cache)
- ``evaluate`` passes each ``(loss, is_greedy)`` result through ``api.instance.unwrap_generation_output``,
  which makes it its ``str()``; a ``multiple_choice`` task's ``process_results`` gets one such string per
  choice (``take_first`` filter): :func:`loss_value`. (requests)
"""

from __future__ import annotations

from temporal_tasks.compat.cli import CLI_FLAGS, command_line_setting, shard
from temporal_tasks.compat.requests import (
    generate_args,
    loglikelihood_args,
    loss_value,
    request_context,
    request_doc,
    request_visuals,
)
from temporal_tasks.compat.stack import (
    EVALUATOR_MODULE,
    FRAME_ARGS,
    READS_VISUALS,
    EvaluationFrames,
    aggregating_task,
    aggregation_selection,
    building_task_config,
    config_entries_env,
    evaluation_frames,
    instance_frame_setting,
    is_lmms_eval_command_line,
    model_reads_visuals,
    restore_cached_visuals,
    run_baseline,
)
from temporal_tasks.compat.tasks import (
    add_task_metadata,
    merge_includes,
    patch_task_manager,
    task_config_name,
    wrap_evaluation_entry_points,
)

__all__ = [
    "CLI_FLAGS",
    "EVALUATOR_MODULE",
    "FRAME_ARGS",
    "READS_VISUALS",
    "EvaluationFrames",
    "add_task_metadata",
    "aggregating_task",
    "aggregation_selection",
    "building_task_config",
    "command_line_setting",
    "config_entries_env",
    "evaluation_frames",
    "generate_args",
    "instance_frame_setting",
    "is_lmms_eval_command_line",
    "loglikelihood_args",
    "loss_value",
    "merge_includes",
    "model_reads_visuals",
    "patch_task_manager",
    "restore_cached_visuals",
    "run_baseline",
    "request_context",
    "request_doc",
    "request_visuals",
    "shard",
    "task_config_name",
    "wrap_evaluation_entry_points",
]

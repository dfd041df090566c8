"""Payload of our ``lmms_eval.models`` entry point (loaded by lmms-eval itself).

lmms-eval accepts an iterable of manifests per entry point (``registry_v2.load_entrypoint_manifests``),
so one entry point registers every model of the package.
"""

from __future__ import annotations

from lmms_eval.models.registry_v2 import ModelManifest

from temporal_tasks.harness import hook

# lmms-eval imports this module while building its model registry, before any TaskManager
# exists in an eval run: registering here makes our tasks visible even without the .pth hook.
hook.register()

manifest = (
    ModelManifest(model_id="temporal_replay", simple_class_path="temporal_tasks.harness.replay.TemporalReplay"),
    ModelManifest(
        model_id="first_token_prob", simple_class_path="temporal_tasks.harness.first_token_prob.FirstTokenProb"
    ),
)

"""Built videos: frame sampling, paired videos, the build cache and background builds.

The modules, by responsibility:

* :mod:`.frame_count`: N, the frame count of every built video, and where it comes from;
* :mod:`.frames`: which frames to take, decoded and memoised (:func:`read_frames` serves the models);
* :mod:`.encode`: codec, frame rate and encoder of built videos;
* :mod:`.cache`: cache folder, content hashes, atomic writes, one builder per file across processes;
* :mod:`.paired`: Vinoground-style paired videos (clip A, black frames, clip B, in exactly N frames);
* :mod:`.shortcut_files`: the shortcut variants' files (one seeded frame, the sampled frames in a seeded order);
* :mod:`.builds`: :class:`BackgroundBuilds`, a rank's files built ahead in the model's order;
* :mod:`.watching`: whether files are built ahead at all (only for a model that reads visuals);
* :mod:`.schedule`: :class:`BuildAhead`, the one scheduler of derived visuals (decide, start or park, serve).

The names below are re-exported here for callers; code that replaces one (a test) patches its module.
"""

from temporal_tasks.video.builds import BackgroundBuilds, build_workers
from temporal_tasks.video.cache import FileBuild, atomic_write, cached_file, content_hash
from temporal_tasks.video.encode import BUILDER_VERSION
from temporal_tasks.video.frame_count import (
    DEFAULT_NUM_FRAMES,
    DEFAULT_SOURCE,
    announce,
    frames_known_now,
    num_frames_in_force,
    num_frames_setting,
    request_num_frames,
    resolve_num_frames,
)
from temporal_tasks.video.frames import (
    clear_frame_cache,
    decode_check,
    fps_indices,
    read_frames,
    read_frames_with_metadata,
    sample_clip,
    uniform_indices,
)
from temporal_tasks.video.paired import (
    GAP_SECONDS,
    build_paired_video,
    build_paired_videos,
    cached_paired_video,
    paired_build,
    paired_cache_path,
    paired_layout,
)
from temporal_tasks.video.schedule import BuildAhead, BuildProgress, announce_frames, builds_paused
from temporal_tasks.video.watching import AHEAD, AT_FIRST_REQUEST, NOT_AHEAD, when_to_build

__all__ = [
    "AHEAD",
    "AT_FIRST_REQUEST",
    "BUILDER_VERSION",
    "DEFAULT_NUM_FRAMES",
    "DEFAULT_SOURCE",
    "GAP_SECONDS",
    "NOT_AHEAD",
    "BackgroundBuilds",
    "BuildAhead",
    "BuildProgress",
    "FileBuild",
    "announce",
    "announce_frames",
    "atomic_write",
    "build_paired_video",
    "build_paired_videos",
    "build_workers",
    "builds_paused",
    "cached_file",
    "cached_paired_video",
    "clear_frame_cache",
    "content_hash",
    "decode_check",
    "fps_indices",
    "frames_known_now",
    "num_frames_in_force",
    "num_frames_setting",
    "paired_build",
    "paired_cache_path",
    "paired_layout",
    "read_frames",
    "read_frames_with_metadata",
    "request_num_frames",
    "resolve_num_frames",
    "sample_clip",
    "uniform_indices",
    "when_to_build",
]

"""Videos whose every frame says which clip and which frame it is, read back from any image a model is sent.

A coded frame is 64x64, an 8x8 grid of 8-pixel cells (one MPEG-4 block each, so near-lossless encoding keeps them):
cell (0, 0) is always white (a black frame, such as a paired video's gap, has none), cells (0, 1..7) hold the frame
index in binary, and rows 1 and 2 the clip's number. :func:`read_code` reads an image of any size back (it is
resized to 64x64 first, as the frame was upscaled on its way to the model).

:func:`coded_copy` copies fixture folders and replaces every video in them (loose ``.mp4`` files and the members of
``.zip`` archives) with a coded clip of the same name: the questions stay, and each frame a model is sent can be
identified.
"""

from __future__ import annotations

import io
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SIZE, CELL = 64, 8
GRID = SIZE // CELL
FRAME_BITS, CLIP_BITS = GRID - 1, 2 * GRID


@dataclass(frozen=True)
class Code:
    """What a received image shows: a frame of a clip, or a black frame (``clip`` and ``frame`` None)."""

    clip: int | None
    frame: int | None

    @property
    def black(self) -> bool:
        return self.clip is None


BLACK = Code(None, None)


def coded_frame(clip: int, frame: int) -> np.ndarray:
    """The 64x64 RGB frame ``frame`` of clip ``clip`` (clip numbers start at 1)."""
    if not (1 <= clip < 2**CLIP_BITS and 0 <= frame < 2**FRAME_BITS):
        raise ValueError(f"clip {clip} or frame {frame} out of range")
    cells = np.zeros((GRID, GRID), dtype=bool)
    cells[0, 0] = True
    cells[0, 1:] = [(frame >> b) & 1 for b in range(FRAME_BITS)]
    cells[1:3].flat[:CLIP_BITS] = [(clip >> b) & 1 for b in range(CLIP_BITS)]
    big = np.kron(cells, np.ones((CELL, CELL), dtype=bool))
    return np.repeat((big * 255).astype(np.uint8)[:, :, None], 3, axis=2)


def read_code(image) -> Code:
    """The code of a PIL image (or an RGB array) of any size: clip and frame, or :data:`BLACK`."""
    from PIL import Image

    pil = image if isinstance(image, Image.Image) else Image.fromarray(np.asarray(image, dtype=np.uint8))
    small = np.asarray(pil.convert("L").resize((SIZE, SIZE), Image.Resampling.BOX), dtype=np.int16)
    cells = small[CELL // 2 :: CELL, CELL // 2 :: CELL] > 128
    if not cells[0, 0]:
        if small.max() > 60:
            raise ValueError("neither a coded frame nor a black one")
        return BLACK
    frame = sum(int(bit) << b for b, bit in enumerate(cells[0, 1:]))
    clip = sum(int(bit) << b for b, bit in enumerate(cells[1:3].flat[:CLIP_BITS]))
    return Code(clip, frame)


def _coded_video(path: Path, clip: int, frames: int) -> None:
    from temporal_tasks.data.fixtures.clips import write_frames

    write_frames(path, [coded_frame(clip, i) for i in range(frames)])


def coded_copy(src: Path, dst: Path, benchmarks: list[str], frames: int = 8) -> dict[str, int]:
    """Copy ``src/<bench>`` to ``dst/<bench>`` for each benchmark, every video replaced by a ``frames``-frame coded
    clip. Returns ``{video name: clip number}`` (the name as in the folder or archive, e.g.
    ``vinoground_videos/0_pos.mp4``)."""
    numbers: dict[str, int] = {}
    for bench in benchmarks:
        shutil.copytree(src / bench, dst / bench)
        for path in sorted((dst / bench).rglob("*")):
            if path.suffix == ".mp4":
                numbers[str(path.relative_to(dst / bench))] = clip = len(numbers) + 1
                _coded_video(path, clip, frames)
            elif path.suffix == ".zip":
                _recode_zip(path, numbers, frames)
    return numbers


def _recode_zip(path: Path, numbers: dict[str, int], frames: int) -> None:
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(tmp, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith(".mp4"):
                numbers[info.filename] = clip = len(numbers) + 1
                scratch = tmp.with_name(f"clip{clip}.mp4")
                _coded_video(scratch, clip, frames)
                data = scratch.read_bytes()
                scratch.unlink()
            new.writestr(info, data)
    tmp.replace(path)


def decode_data_url(url: str):
    """The PIL image of a ``data:image/...;base64,`` URL."""
    import base64

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))

"""The shared pieces of the full-size fixtures (``data/fixtures/full.py``): even group sizes, stored zips, the clips."""

from __future__ import annotations

import zipfile

import av

from temporal_tasks.data.fixtures.full import clips, even_sizes, write_zip


def test_even_sizes_sum_to_the_total_larger_first():
    assert even_sizes(3, 10) == [4, 3, 3]
    assert even_sizes(4, 8) == [2, 2, 2, 2]
    assert even_sizes(3, 1) == [1, 0, 0]
    assert even_sizes(2, 0) == [0, 0]
    assert even_sizes(2179, 9867).count(5) == 9867 - 4 * 2179  # TemporalBench short QA


def test_write_zip_stores_members_uncompressed_in_a_new_folder(tmp_path):
    archive = tmp_path / "new" / "a.zip"
    write_zip(archive, iter([("x/one.mp4", b"abc"), ("two.json", b"{}")]))
    with zipfile.ZipFile(archive) as zf:
        assert zf.namelist() == ["x/one.mp4", "two.json"] and zf.read("x/one.mp4") == b"abc"
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}
    write_zip(tmp_path / "empty.zip", [])
    with zipfile.ZipFile(tmp_path / "empty.zip") as zf:
        assert zf.namelist() == []


def test_clips_are_four_distinct_eight_frame_videos(tmp_path):
    blobs = clips(tmp_path)
    assert len(blobs) == 4 and len(set(blobs)) == 4
    (tmp_path / "c.mp4").write_bytes(blobs[2])
    with av.open(str(tmp_path / "c.mp4")) as container:
        assert sum(1 for _ in container.decode(video=0)) == 8

"""``temporal-tasks view`` (``tools/view/__init__.py``): its errors."""

from __future__ import annotations

from temporal_tasks import cli


def test_view_command_errors(tmp_path, capsys):
    assert cli.main(["view", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert cli.main(["view", str(tmp_path), str(tmp_path), str(tmp_path)]) == 2
    assert "one run or two" in capsys.readouterr().err

"""Outputs are written atomically: a failed job leaves neither half a file nor half a directory."""

from __future__ import annotations

import pytest

from jaxpitfalls import results


def test_a_directory_is_put_in_place_whole_or_not_at_all(tmp_path):
    out = tmp_path / "model"
    out.mkdir()
    (out / "old.safetensors").write_text("the previous run's")

    def half_then_fail(tmp: str) -> None:
        (tmp_path / "seen").write_text(tmp)
        open(f"{tmp}/config.json", "w").close()
        raise RuntimeError("the job died here")

    with pytest.raises(RuntimeError, match="died"):
        results.write_dir_atomically(out, half_then_fail)
    assert [p.name for p in out.iterdir()] == ["old.safetensors"]  # the previous result, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "seen"]  # no temporary directory left

    results.write_dir_atomically(out, lambda tmp: open(f"{tmp}/config.json", "w").close())
    assert [p.name for p in out.iterdir()] == ["config.json"]  # replaced whole: no file of the old run
    assert out.stat().st_mode & 0o777 != 0o700  # readable by others, like every result


def test_a_file_is_renamed_into_place_only_when_written(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old")
    with pytest.raises(ValueError):
        results.write_atomically(path, lambda tmp: (open(tmp, "w").write("half"), int("x")))
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["run.json"]

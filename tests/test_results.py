"""Outputs are written atomically: a failed job leaves neither half a file nor half a directory."""

from __future__ import annotations

import json
from pathlib import Path

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


# a result written before the format stamp: the published GPU run's raw results
OLDER = sorted((Path(__file__).resolve().parents[1] / "docs/results/gpu").glob("*/raw/tree_at/*.json"))[0]


def test_a_result_records_its_format_and_version_and_a_later_format_is_refused_by_name(tmp_path):
    """A result written before the format stamp (format 0, the published GPU run's) is read as it is; one
    written now carries the format and the package version; one of a later format is refused, both named."""
    older = results.read_result(OLDER)
    assert "format" not in older
    results.write_result(tmp_path / "now.json", older)
    stamp = results.read_result(tmp_path / "now.json")["format"]
    assert stamp == {"result": results.FORMAT, "jaxpitfalls": results.package_version()}
    later = older | {"format": {"result": results.FORMAT + 1, "jaxpitfalls": "9.0"}}
    (tmp_path / "later.json").write_text(json.dumps(later))
    with pytest.raises(results.InvalidResult, match=rf"result format {results.FORMAT + 1} \(written by jaxpitfalls "
                                                   rf"9\.0\); this checkout .* reads formats up to {results.FORMAT}"):
        results.read_result(tmp_path / "later.json")

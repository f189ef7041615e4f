"""A published history's job table, rejudged by this checkout's fit: the steps the workflow's own report would find
in it, what else changed between the releases read from the versions the jobs recorded, its releases as
written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.across_runs.history import rejudge
from jaxpitfalls.across_runs.history.history import steps_table
from jaxpitfalls.across_runs.history.release_levels import release_levels

DOCS = Path(__file__).parents[1] / "docs"
RELEASES = ["0.4", "0.5", "0.5.1", "0.6", "0.7", "0.8"]  # 0.5 read as a number would lose its place


def _table() -> pd.DataFrame:
    """Two series over six releases in two jobs each; a 20% step at 0.6 in the first, where jax changed too."""
    rng = np.random.default_rng(3)
    rows = []
    for index, release in enumerate(RELEASES):
        jax = "0.4.38" if index >= 3 else "0.4.34"
        for job in (1, 2):
            for variant in ("stepped", "flat"):
                y = (np.log(1.2) if variant == "stepped" and index >= 3 else 0.0) + rng.normal(0, 0.01)
                rows.append({"release": release, "job": job, "config_id": "base", "variant": variant,
                             "baseline": "floor", "mode": "blocked", "ratio": np.exp(y),
                             "ratio_ci_low": np.exp(y - 0.02), "ratio_ci_high": np.exp(y + 0.02),
                             "detectable_change": 0.03, "versions": f"jax {jax}, jaxlib {jax}, equinox {release}",
                             "ran_at": ""})
    return pd.DataFrame(rows)


def test_a_written_table_rejudged_names_the_step_the_report_would_with_what_else_changed(tmp_path):
    table = tmp_path / "history.csv"
    _table().to_csv(table, index=False)
    read = rejudge.read_table(table)
    assert list(dict.fromkeys(read.release)) == RELEASES
    steps = rejudge.rejudged(read, "equinox")
    stepped = steps[steps.variant == "stepped"]
    assert list(stepped[["step", "before", "after"]].itertuples(index=False, name=None)) == [(1, "0.5.1", "0.6")]
    assert stepped.also_changed.iloc[0] == "jax 0.4.34 -> 0.4.38; jaxlib 0.4.34 -> 0.4.38"
    assert stepped.ratio_ci_low.iloc[0] < 1.2 < stepped.ratio_ci_high.iloc[0]
    assert list(steps[steps.variant == "flat"].step) == [0]
    envs = {r: {"packages": {"equinox": r}} for r in RELEASES}
    by_report = steps_table(release_levels(_table()), RELEASES, "equinox", envs)
    fitted = ["step", "before", "after", "ratio", "ratio_ci_low", "ratio_ci_high", "ruled_out"]
    pd.testing.assert_frame_equal(steps[fitted], by_report[fitted])


def test_the_command_prints_the_report_s_line_per_series_and_writes_the_steps(tmp_path, capsys):
    table, steps = tmp_path / "history.csv", tmp_path / "steps.csv"
    _table().to_csv(table, index=False)
    assert rejudge.main([str(table), "equinox", "--steps", str(steps)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and "**equinox 0.5.1 -> 0.6: " in printed[0]
    assert "(jax 0.4.34 -> 0.4.38; jaxlib 0.4.34 -> 0.4.38 changed too)" in printed[0]
    assert "no step over 6 releases" in printed[1]
    assert len(pd.read_csv(steps)) == 2


def test_the_command_refuses_a_package_the_table_never_ran_and_says_what_a_pattern_declared(tmp_path, capsys):
    """A typo'd package named a step in 'equinx' with equinox 'changed too'; a typo'd pattern was silent."""
    table = tmp_path / "history.csv"
    _table().to_csv(table, index=False)
    with pytest.raises(SystemExit) as refused:
        rejudge.main([str(table), "equinx"])
    assert refused.value.code == 2 and "records no release of 'equinx': its jobs ran equinox, jax" in \
        capsys.readouterr().err
    assert rejudge.main([str(table), "equinox", "--primary", "*/filter_jt/*"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Steps corrected in every series") and "'*/filter_jt/*' named no series" in first


def test_the_published_equinox_table_still_gives_the_steps_docs_history_states():
    """docs/history.md's published run, rejudged by today's fit: the same steps, each size and interval as the
    page prints it (a change of the fit that moves them must restate the page)."""
    steps = rejudge.rejudged(rejudge.read_table(DOCS / "results" / "history" / "equinox.csv"), "equinox")
    named = steps[steps.step > 0]
    assert sorted(named[["variant", "baseline", "mode", "after"]].itertuples(index=False, name=None)) == [
        ("filter_jit", "jit_flat", "blocked", "0.11.8"), ("filter_jit", "jit_flat", "pipelined", "0.11.8"),
        ("filter_jit", "jit_partition", "blocked", "0.11.8"), ("filter_jit", "jit_partition", "infer", "0.11.8"),
        ("filter_jit", "jit_partition", "pipelined", "0.11.8"),
        ("jit_partition", "jit_flat", "flatten", "0.11.11")]
    page = " ".join((DOCS / "history.md").read_text().split())
    for r in named.itertuples():
        assert f"{r.ratio:.3f}x [{r.ratio_ci_low:.3f}, {r.ratio_ci_high:.3f}]" in page

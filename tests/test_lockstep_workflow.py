"""The project's environment against itself (and against itself with other XLA flags), timed in lockstep by
the real workflow on the smoke preset: every side's worker answers every round, both sides' variants ran
the same code, and reports/compare_lockstep.md counts its verdicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from configs import SMOKE_XLA_FLAGS, smoke_result
from workflow_copy import snakemake

from jaxpitfalls.across_runs.calibration import published, timed

pytestmark = pytest.mark.workflow

ONE_DEVICE = f"{SMOKE_XLA_FLAGS} --xla_force_host_platform_device_count=1"


def _sides(tmp_path, rounds: int, allocated: int) -> Path:
    """dispatch's base in lockstep on sides a and b (b's XLA flags its own), `allocated` rounds its own."""
    overlay = tmp_path / f"sides-{rounds}-{allocated}.yaml"
    overlay.write_text(yaml.safe_dump({
        "studies": {"dispatch": {"sweep": {"layers": []}}}  # its base only
        | {name: {"enabled": False} for name in ("tree_at", "extraction", "generation")},
        "compare": {"sides": {"a": {}, "b": {"env": {"XLA_FLAGS": ONE_DEVICE}}}, "rounds": rounds,
                    "samples_per_block": 1, "processes": 1, "variants": ["jit_flat", "filter_jit"],
                    "allocation": {Path(smoke_result("dispatch")).stem: {"rounds": allocated}}}}))
    return overlay


def test_sides_timed_in_lockstep_pair_every_round_and_name_what_differs(smoke_run, tmp_path):
    """...in the rounds its configuration was allocated, and editing the config's rounds, which the allocation
    overrides, reruns no job, editing the allocation its job."""
    workdir = shutil.copytree(smoke_run, tmp_path / "lockstep", symlinks=True)
    snakemake(workdir, "--cores", "all", "reports/compare_lockstep.md", overlay=_sides(tmp_path, 5, 3))
    for rounds, allocated, reruns in ((6, 3, False), (5, 4, True)):
        planned = snakemake(workdir, "-n", "reports/compare_lockstep.md", overlay=_sides(tmp_path, rounds, allocated))
        assert ("rule lockstep:" in planned.stdout) == reruns, planned.stdout[-2000:]

    (path,) = (workdir / "results" / "lockstep" / "dispatch").glob("*.json")
    recorded = json.loads(path.read_text())["timed"]
    assert recorded["sides"] == ["a", "b"] and len(recorded["processes"]) == 1
    rounds = recorded["processes"][0]
    for side in ("a", "b"):
        assert set(rounds[side]) == {"blocked", "pipelined"}
        assert all(list(mode) == ["filter_jit", "jit_flat"] for mode in rounds[side].values())  # compare.variants
        assert all(len(xs) == 3 and min(xs) > 0 for mode in rounds[side].values() for xs in mode.values())
    signatures = {side: described[0]["signatures"] for side, described in recorded["descriptions"].items()}
    assert signatures["a"] == signatures["b"]  # the same code on both sides
    assert set(signatures["a"]) == {"filter_jit", "jit_flat"}  # the variants not named not even compiled

    report = (workdir / "reports" / "compare_lockstep.md").read_text()
    assert "# Lockstep comparison" in report and "Verdicts: " in report and "Side order: counterbalanced" in report
    assert "(figures/compare_lockstep.png)" in report
    assert (workdir / "reports" / "figures" / "compare_lockstep.png").stat().st_size > 10_000  # the rows drawn
    assert "Timed: 1 fresh process x 3 rounds x 1 sample per block a side, as the 1 job recorded. Only the " \
        "variants compare.variants names: filter_jit, jit_flat." in report
    assert [len(rounds) for rounds in recorded["machine"][0].values()] == [3, 3]  # every round of both modes watched
    assert "Machine, round by round (the workers' own CPU taken out)" in report or "not measurable here" in report
    assert "survives Benjamini-Hochberg over all" in report
    assert f"xla_flags {SMOKE_XLA_FLAGS} -> {ONE_DEVICE}" in report
    assert "Machine time of the run's timing jobs" in report and "against the run's target of" in report


def test_the_calibration_report_sets_pyperf_beside_the_lockstep_on_one_callable(smoke_run, tmp_path):
    """`make calibrate`'s rules on the smoke preset, small: an A/A pair of sides, and pyperf (two processes of two
    values, not its defaults) twice on the base's blocked jit_partition; the report counts the rows and costs both."""
    workdir = shutil.copytree(smoke_run, tmp_path / "calibration", symlinks=True)
    overlay = tmp_path / "calibrate.yaml"
    overlay.write_text(yaml.safe_dump({
        "studies": {"dispatch": {"sweep": {"layers": []}}}
        | {name: {"enabled": False} for name in ("tree_at", "extraction", "generation")},
        "compare": {"sides": {"a": {}, "a2": {}}, "rounds": 3, "samples_per_block": 1, "processes": 1,
                    "pyperf": {"callable": "blocked/jit_partition", "options": ["-p", "2", "-n", "2", "-l", "1"]}}}))
    snakemake(workdir, "--cores", "all", "reports/calibration.md", "reports/compare_lockstep.md", overlay=overlay)

    (path,) = (workdir / "results" / "pyperf" / "dispatch").rglob("jit_partition/pair1.json")
    pair = json.loads(path.read_text())
    assert pair["options"][-6:] == ["-p", "2", "-n", "2", "-l", "1"]
    for run in pair["runs"].values():  # two worker processes of two values each, per run
        assert [len(values) for values in run["values_s"]] == [2, 2] and run["wall_s"] > 0
        assert all(0 < v < 10 for values in run["values_s"] for v in values)
    report = (workdir / "reports" / "calibration.md").read_text()
    assert "## Beside pyperf, on the same callable" in report and ", but with `-p 2 -n 2 -l 1`" in report
    assert "pyperf, its own t-test (compare_to)" in report and "lockstep (this calibration's a2 vs a)" in report

    kept = timed.read(workdir / "results" / "calibration")  # what it timed, kept whole beside the page
    assert kept.table.equals(pd.read_csv(workdir / "results" / "tables" / "compare_lockstep.csv"))
    (lockstep,) = (workdir / "results" / "lockstep" / "dispatch").glob("*.json")
    assert kept.jobs == [json.loads(lockstep.read_text())] and kept.pyperf[0] == pair
    assert set(kept.compare["sides"]) == {"a", "a2"} and kept.history_steps is None
    assert kept.run_target_s > 0 and f"against the run's target of {kept.run_target_s:.0f} s" in report
    lockstep_report = (workdir / "reports" / "compare_lockstep.md").read_text()  # one part: the page judges the run
    assert "Machine time of the run's timing jobs" in lockstep_report and "target" not in lockstep_report
    docs = tmp_path / "docs"  # published, and rejudged: the same page
    published.publish(workdir, docs)
    assert published.rejudged(docs) == report

    gated = yaml.safe_load(overlay.read_text())  # the gate's own keys rerun the comparison's report alone
    gated["compare"] |= {"primary": ["dispatch/*"], "fail_on_regression": True}
    overlay.write_text(yaml.safe_dump(gated))
    planned = snakemake(workdir, "-n", "reports/calibration.md", "reports/compare_lockstep.md", overlay=overlay).stdout
    assert "rule compare_lockstep:" in planned, planned[-2000:]
    assert not any(f"rule {rule}:" in planned for rule in ("calibration", "compare_lockstep_table", "lockstep"))

"""The release history run by the real workflow on the smoke preset, with the project's own environment as a
release (config `history.pythons`: checked, not built): the release's result records the release it ran, the
report says what changed, its two jobs ran in the history's shuffled order, and adding a release plans its
environment and its jobs alone."""

from __future__ import annotations

import json
import re
import shutil
import sys
from importlib import metadata

import pytest
import yaml
from configs import config_with
from workflow_copy import snakemake

from jaxpitfalls.across_runs import releases

pytestmark = pytest.mark.workflow

OTHER_STUDIES = ("tree_at", "extraction", "generation")


def _jobs(proc) -> dict[str, int]:
    """Planned jobs per rule, from `snakemake -n`'s job stats."""
    jobs = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0].isidentifier() and parts[0] != "total":
            jobs[parts[0]] = int(parts[1])
    return jobs


def _overlay(tmp_path, releases: list[str]):
    path = tmp_path / f"history-{len(releases)}.yaml"
    path.write_text(yaml.safe_dump({
        "studies": {name: {"enabled": False} for name in OTHER_STUDIES},
        "history": {"versions": releases, "pythons": dict.fromkeys(releases, sys.executable)}}))
    return path


def test_each_release_is_timed_in_its_environment_and_a_new_one_alone(smoke_run, tmp_path):
    workdir = shutil.copytree(smoke_run, tmp_path / "history", symlinks=True)
    installed = metadata.version("equinox")
    overlay = _overlay(tmp_path, [installed])
    snakemake(workdir, "--cores", "all", "reports/history.md", overlay=overlay)

    status = json.loads((workdir / "results" / "history" / "envs" / installed / "status.json").read_text())
    assert status["ok"] and status["versions"]["equinox"] == installed
    paths = sorted((workdir / "results" / "history" / "runs" / installed).rglob("*.json"))
    assert [p.parent.name for p in paths] == ["job1", "job2"]  # two jobs a release by default
    planned = releases.run_order(config_with("presets/smoke.yaml", yaml.safe_load(overlay.read_text())))
    ran = sorted(paths, key=lambda p: p.stat().st_mtime_ns)  # one after another: written in the order they ran
    assert [str(p.relative_to(workdir)) for p in ran] == planned
    doc = json.loads(paths[0].read_text())
    assert doc["environment"]["packages"]["equinox"] == installed and doc["comparisons"]
    report = (workdir / "reports" / "history.md").read_text()
    assert "## What changed" in report and "measured in 1 release: nothing to compare" in report
    assert (workdir / "reports" / "figures" / "history.png").stat().st_size > 0

    wider = _overlay(tmp_path, [installed, "99.0"])
    dry = snakemake(workdir, "-n", "reports/history.md", overlay=wider)
    assert _jobs(dry) == {"release_env": 1, "history_run": 2, "history": 1}  # adding a release reruns none
    # the new release's jobs are planned at their places in the shuffled order: their priorities
    config = config_with("presets/smoke.yaml", yaml.safe_load(wider.read_text()))
    job = r"rule history_run:\n(?:.*\n)*?\s+output: (\S+)\n(?:.*\n)*?\s+priority: ([\d.]+)"
    said = dict(re.findall(job, dry.stdout))
    assert said and {run: float(p) for run, p in said.items()} == {
        run: releases.run_priorities(config)[run] for run in said}

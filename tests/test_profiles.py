"""On a cluster every timing job gets a node to itself: each rule that takes the `timing` resource (the default
profile's limit keeps them apart on one machine) is submitted --exclusive by profiles/slurm, but release_env, which
takes it only so that its pip install never runs beside a timing job on one machine, and times nothing."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def timing_rules() -> set[str]:
    """The rules whose resources name `timing`, read from the rule files."""
    found = set()
    for path in (ROOT / "workflow/rules").glob("*.smk"):
        for block in re.split(r"^rule ", path.read_text(), flags=re.MULTILINE)[1:]:
            if re.search(r"^\s+timing=", block, flags=re.MULTILINE):
                found.add(block.split(":")[0].strip())
    return found


def test_every_timing_job_gets_a_node_of_its_own_on_slurm():
    rules = timing_rules() - {"release_env"}
    assert {"run_study", "capture_trace", "lockstep", "pyperf_pair", "history_run"} <= rules
    profile = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())["set-resources"]
    assert {rule for rule in rules if "--exclusive" not in profile.get(rule, {}).get("slurm_extra", "")} == set()

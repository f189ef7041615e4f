"""A Slurm run's `--cores` above every node's CPU count stops at `onstart`, naming the largest node (Slurm kept such a
timing job pending in silence); a local run, a count some node has, or no sinfo to ask lets the run go on."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from jaxpitfalls.slurm_nodes import cores_no_node_has

SLURM = SimpleNamespace(name="slurm")


@pytest.fixture
def sinfo(tmp_path, monkeypatch):
    """A fake `sinfo` on PATH printing `shown` (its node groups' CPU counts)."""
    def install(shown: str, status: int = 0) -> None:
        tool = tmp_path / "sinfo"
        tool.write_text(f"#!/bin/sh\nprintf '{shown}'\nexit {status}\n")
        tool.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return install


def test_cores_no_node_has_stop_the_run_naming_the_largest_node(sinfo):
    sinfo("2\\n16\\n16\\n")
    said = cores_no_node_has(SimpleNamespace(executor_plugin=SLURM, cores=64))
    assert said.startswith("--cores 64: no node of this cluster has 64 CPUs (the largest has 16)")
    assert "Pass --cores 16 or fewer" in said


@pytest.mark.parametrize("plugin, cores, shown, status", [
    (SLURM, 16, "2\\n16\\n", 0),  # a node has them
    (SimpleNamespace(name="local"), 64, "2\\n", 0),  # not on Slurm
    (SLURM, 64, "", 1),  # sinfo fails: nothing to say
    (SLURM, 64, "n/a\\n", 0),
    (SLURM, 64, "2\\n32+\\n", 0),  # a group's least: its largest node may have 64
])
def test_a_run_some_node_can_take_or_one_sinfo_cannot_judge_goes_on(sinfo, plugin, cores, shown, status):
    sinfo(shown, status)
    assert cores_no_node_has(SimpleNamespace(executor_plugin=plugin, cores=cores)) == ""

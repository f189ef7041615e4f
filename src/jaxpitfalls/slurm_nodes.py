"""A Slurm run's `--cores` against its nodes, at `onstart`: a timing job asks for `--cores` CPUs, and Slurm keeps a
request no node meets pending in silence."""

from __future__ import annotations

import subprocess
from typing import Any


def node_cpus() -> list[int]:
    """Each node's CPU count by `sinfo`, hidden partitions too (empty: it cannot say)."""
    try:
        shown = subprocess.run(["sinfo", "-h", "-N", "-a", "-o", "%c"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    counts = shown.stdout.split()
    # a count it cannot give exactly ("32+", a group's least) says nothing of the largest node
    return [int(c) for c in counts] if shown.returncode == 0 and all(c.isdigit() for c in counts) else []


def cores_no_node_has(workflow: Any) -> str:
    """Why a Slurm run cannot start; "" where it can, or is not on Slurm."""
    plugin = getattr(workflow, "executor_plugin", None)
    if getattr(plugin, "name", None) != "slurm":
        return ""
    cores, counts = workflow.cores, node_cpus()
    if not counts or cores <= max(counts):
        return ""
    return (f"--cores {cores}: no node of this cluster has {cores} CPUs (the largest has {max(counts)}), and every "
            f"timing job asks for --cores CPUs on a node of its own: Slurm would keep it pending. Pass --cores "
            f"{max(counts)} or fewer (docs/cluster.md).")

"""What extraction claims read from a run's tables, derived once per run or per claim."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...contract.decisions import row
from ...contract.judging import Run, once_per_run
from ...contract.verdicts import Bound
from .report import throughput, warmup_pass_seconds
from .spec import STACKED


def host_ms(phases: pd.Series) -> float:
    """A pass's copies and the Python storing them: what copy fixes and the time split are about."""
    return phases.transfer_ms + phases.storage_ms


def overlap_ms(before: pd.Series, after: pd.Series) -> float:
    """What pipelining can hide at best: the smaller of the device's and the host's work, the dispatch (pipelined's
    forward) the host's (docs/decisions.md#pipelinings-bound)."""
    sides = np.minimum(before.forward_ms - after.forward_ms, before.pass_ms - before.forward_ms + after.forward_ms)
    return float(np.clip(sides, 0.0, None))  # a missing phase: nan, as before


# What a fix removes at best, from the pass's phases of the variants before and after it (ms per pass): the
# blocking copies and their storage, or pipelining's overlap. The scan has no such bound: besides Python's
# per-batch dispatch it removes each call's runtime setup, which no phase shows
# (docs/decisions.md#scans-have-no-bound).
REMOVABLE = {
    ("jit_padded", "jit_padded_async"): ("removing", lambda before, _: host_ms(before)),
    STACKED: ("removing", lambda before, _: host_ms(before)),
    ("jit_padded_async", "pipelined"): ("overlapping", overlap_ms),
}


@once_per_run
def speeds(run: Run) -> pd.DataFrame:
    """The report's throughput table: phases per configuration and variant."""
    return throughput(run.tables["steps"])


def bound(before: pd.Series, after: pd.Series, fix: tuple[str, str]) -> Bound | None:
    """The largest gain a fix can show here: all it removes from its before-variant's pass (None outside REMOVABLE)."""
    if fix not in REMOVABLE:
        return None
    doing, removable_ms = REMOVABLE[fix]
    removable = removable_ms(before, after)
    return Bound(before.pass_ms, removable, f"{doing} all it can ({removable:.1f} ms of a {before.pass_ms:.1f} ms "
                                            "pass)")


@once_per_run
def warmup_passes(run: Run) -> pd.Series:
    return warmup_pass_seconds(run.tables["steps"])


def eager_row(run: Run) -> pd.Series:
    """eager's timed passes at the base configuration."""
    return row(run.steps, config_id=run.base_id, variant="eager", mode="extract")

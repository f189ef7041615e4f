"""Overheads paired by round with the base's pair in the same job: separate jobs carry the machine's drift."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import difference_between, difference_of, interval, row, rows
from ...contract.judging import Run
from ...contract.verdicts import Estimate
from ...harness.stats import difference_side
from .report import ms
from .spec import ANCHOR_PAIR, BESIDE

# Said beside a difference of two configurations' overheads timed in separate jobs, minutes apart: a shared VM's
# speed moves between jobs (1.15-1.8x within one reference run: docs/decisions.md#anchors), which no interval of
# one job holds.
ACROSS_JOBS = "separate jobs: the machine's drift is in their difference"


def beside_base(run: Run, config_id: str) -> tuple[pd.Series, tuple[float, float, float]] | None:
    """The base's overhead in `config_id`'s job, and the configuration's minus it paired by round; None unanchored."""
    def timed(variant: str) -> bool:
        return not rows(run.comp, config_id=config_id, mode="blocked", variant=variant).empty

    if not timed(ANCHOR_PAIR[0]):
        return None
    anchor = run.pair(*ANCHOR_PAIR, config_id=config_id, mode="blocked")
    if not timed(difference_side(*BESIDE)):
        return anchor, difference_between(run.pair(*BESIDE, config_id=config_id, mode="blocked"), anchor)
    shift = run.pair(difference_side(*BESIDE), difference_side(*ANCHOR_PAIR), config_id=config_id, mode="blocked")
    return anchor, difference_of(shift)


def leaves_growth(run: Run, layers: pd.DataFrame) -> list[tuple[int, int, tuple[float, float, float], str]]:
    """Per layers configuration beside the base: (fewer leaves, more leaves, overhead growth, text), widest first."""
    base_leaves = int(row(layers, config_id=run.base_id).leaves)
    found = []
    for r in layers[layers.config_id != run.base_id].itertuples():
        beside = beside_base(run, r.config_id)
        if beside is None:
            continue
        anchor, shift = beside
        ends = sorted([(base_leaves, f"{ms(anchor)} at {base_leaves} leaves (the base)"),
                       (int(r.leaves), f"{interval(*difference_of(r), ' ms')} at {int(r.leaves)} leaves")])
        growth = shift if r.leaves > base_leaves else (-shift[0], -shift[2], -shift[1])
        found.append((ends[0][0], ends[1][0], growth, f"{ends[0][1]} -> {ends[1][1]}"))
    return sorted(found, key=lambda f: -(f[1] - f[0]))


def widest_shift(shifts: dict[str, tuple[float, float, float]], band: float) -> tuple[str, Estimate]:
    """The setting whose shift reaches farthest from 0 (it decides against the band), as a row."""
    setting, shift = max(shifts.items(), key=lambda kv: max(abs(kv[1][1]), abs(kv[1][2])))
    return setting, Estimate(*shift, " ms", f"{setting} shift (band +-{band:.3f} ms)")

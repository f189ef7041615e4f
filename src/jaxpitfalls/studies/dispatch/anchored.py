"""A dispatch overhead read over the base's timed in the same job, round by round, for the claims that compare
configurations and settings (`structure`: a configuration's job times the base's pair, its anchor, spec.ANCHOR;
`not_compute`: the base's job times each compute setting's pair, spec.BESIDE): paired in time, where overheads
from separate jobs carry the machine's drift between them."""

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
    """The base's overhead (filter_jit - jit_partition, blocked) as `config_id`'s own job timed it (its anchor,
    spec.ANCHOR), and the configuration's overhead minus it (ms, 95% interval), paired round by round (the
    difference of the two differences: stats.DIFFERENCE), so the machine's drift between jobs and between rounds
    cancels; from a result that compared no differences (written before they were), the two pairs' intervals
    combined. None where the job timed no anchor."""
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
    """Per configuration of the layers axis timed beside the base: (fewer leaves, more leaves, the overhead
    at more minus at fewer, the words that show both overheads), farthest from the base's leaves first."""
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
    """The compute setting whose overhead shift reaches farthest from 0 (the one that decides against the band),
    and its shift as the row shows it."""
    setting, shift = max(shifts.items(), key=lambda kv: max(abs(kv[1][1]), abs(kv[1][2])))
    return setting, Estimate(*shift, " ms", f"{setting} shift (band +-{band:.3f} ms)")

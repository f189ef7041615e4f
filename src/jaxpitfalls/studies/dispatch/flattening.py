"""jax.jit's own flattening of the partitioned pytree, as the dispatch claims about it read it: jit_partition's and
filter_jit's overhead over a flat list of leaves at BERT-base's 12-layer pytree, and the share of filter_jit's
that partitioning leaves (partition_free judges that share, flattening_left the flattening's cost)."""

from __future__ import annotations

import pandas as pd

from ...report.claims import difference_of, ratio_of, rows, share_of
from ...report.judging import Run
from .report import ms
from .spec import LEFT_SHARE, SPEC
from .structure import at_pytree


def flattening(run: Run) -> tuple[str, str, pd.Series, pd.Series]:
    """Where jax.jit's own flattening is timed (BERT-base's 12-layer pytree, `at_pytree`, with the words that say
    at which width) and its two rows there, jit_partition's and filter_jit's overhead over the flat-leaves floor
    (blocked): what partition_free and flattening_left both read."""
    config_id, tree_only = at_pytree(run, set(run.comp.config_id))
    part, whole = (run.pair(v, SPEC.floor, config_id, mode="blocked") for v in ("jit_partition", "filter_jit"))
    return config_id, tree_only, part, whole


def share_text(left: tuple[float, ...], how: str, whole: pd.Series) -> str:
    """`14.3% [1.0, 25.3] of filter_jit's 7.348 ms [...] (paired by round)`: the share `share_left` gives."""
    return f"{100 * left[0]:.1f}% [{100 * left[1]:.1f}, {100 * left[2]:.1f}] of filter_jit's {ms(whole)} ({how})"


def share_left(run: Run, config_id: str, part: pd.Series, whole: pd.Series) -> tuple[tuple[float, ...], str]:
    """jit_partition's overhead over the floor as a share of filter_jit's, paired by round (spec.LEFT_SHARE), or,
    where the job timed none or filter_jit's overhead may be 0 (no ratio), the two medians' intervals end
    divided by end (wider: the drift between rounds stays in)."""
    paired = rows(run.comp, config_id=config_id, variant=LEFT_SHARE[0], baseline=LEFT_SHARE[1], mode="blocked")
    if len(paired) == 1 and pd.notna(paired.ratio.iloc[0]):
        return ratio_of(paired.iloc[0]), "paired by round"
    return share_of(difference_of(part), difference_of(whole)), "end divided by end"

"""jax.jit's own flattening of the partitioned pytree, as the dispatch claims about it read it: jit_partition's and
filter_jit's overhead over a flat list of leaves at BERT-base's 12-layer pytree, and the share of filter_jit's
that partitioning leaves (partition_free judges that share, flattening_left the flattening's cost); and, where the
job timed the `flatten` mode (noop.py), the part of it a step pays before its program starts: at most what the
step's difference holds, so that where that difference, timed in the no-op's own rounds, lies above 0, the step's
does too (flattening_left). Its share of filter_jit's overhead divides it by steps timed minutes apart, where the
machine's speed can differ: shown, not judged (spec.UNPAIRED)."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import Decision, decide, difference_of, ratio_of, rows, share_of
from ...contract.judging import Run
from .report import ms
from .spec import FLATTEN_MODE, LEFT_SHARE, SPEC
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


def before_program(run: Run, config_id: str) -> pd.Series | None:
    """The `flatten` mode's row at `config_id`: jax.jit's handling of jit_partition's arguments over jit_flat's
    flat list on a jitted no-op; None where the job timed no such mode (results older than it)."""
    found = rows(run.comp, config_id=config_id, variant="jit_partition", baseline=SPEC.floor, mode=FLATTEN_MODE)
    return None if found.empty else found.iloc[0]


def before_program_text(noop: pd.Series) -> str:
    """What `before_program` found, as a claim's text shows it: what a step pays before its program starts."""
    return (f"; before the program starts (a jitted no-op on the same arguments, `flatten` mode) jax.jit's handling "
            f"of them costs {ms(noop)} over {SPEC.floor}'s flat list: a step pays at least this difference, "
            "at the speed it was timed")


def at_least(step: Decision, low: float, high: float, edge: float, holds: str, of: str) -> Decision:
    """A claim's decision on the step's interval, unless a quantity that is at most the step's (its part before
    the program, `before_program`) lies wholly above `edge`: then the step's does too, and that decides (for a
    claim that holds `below` the edge, against it; `above`, for it). Below the edge it says nothing. Only for a
    quantity timed in its own rounds (the no-op's difference), not one divided by another mode's."""
    if not low > edge:
        return step
    return decide(low, high, edge, holds=holds, of=of)

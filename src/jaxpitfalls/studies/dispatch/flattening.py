"""jax.jit's own flattening at BERT-base's 12-layer pytree: overheads over the flat floor, the no-op's bound."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import Decision, decide, difference_of, ratio_of, rows, share_of
from ...contract.judging import Run
from .report import ms
from .spec import FLATTEN_MODE, LEFT_SHARE, SPEC
from .structure import at_pytree


def flattening(run: Run) -> tuple[str, str, pd.Series, pd.Series]:
    """Where timed, and jit_partition's and filter_jit's overheads over the floor there."""
    config_id, tree_only = at_pytree(run, set(run.comp.config_id))
    part, whole = (run.pair(v, SPEC.floor, config_id, mode="blocked") for v in ("jit_partition", "filter_jit"))
    return config_id, tree_only, part, whole


def share_text(left: tuple[float, ...], how: str, whole: pd.Series) -> str:
    """`share_left`'s share as text."""
    return f"{100 * left[0]:.1f}% [{100 * left[1]:.1f}, {100 * left[2]:.1f}] of filter_jit's {ms(whole)} ({how})"


def share_left(run: Run, config_id: str, part: pd.Series, whole: pd.Series) -> tuple[tuple[float, ...], str]:
    """jit_partition's overhead over the floor as a share of filter_jit's: paired, else end by end."""
    paired = rows(run.comp, config_id=config_id, variant=LEFT_SHARE[0], baseline=LEFT_SHARE[1], mode="blocked")
    if len(paired) == 1 and pd.notna(paired.ratio.iloc[0]):
        return ratio_of(paired.iloc[0]), "paired by round"
    return share_of(difference_of(part), difference_of(whole)), "end divided by end"


def before_program(run: Run, config_id: str) -> pd.Series | None:
    """The `flatten` mode's row at `config_id`; None where untimed."""
    found = rows(run.comp, config_id=config_id, variant="jit_partition", baseline=SPEC.floor, mode=FLATTEN_MODE)
    return None if found.empty else found.iloc[0]


def before_program_text(noop: pd.Series) -> str:
    """What a step pays before its program starts, as a claim's text."""
    return (f"; before the program starts (a jitted no-op on the same arguments, `flatten` mode) jax.jit's handling "
            f"of them costs {ms(noop)} over {SPEC.floor}'s flat list: a step pays at least this difference, "
            "at the speed it was timed")


def at_least(step: Decision, low: float, high: float, edge: float, holds: str, of: str) -> Decision:
    """`step`, unless [low, high] (a lower bound on the step, own rounds) lies above `edge`: then that decides."""
    if not low > edge:
        return step
    return decide(low, high, edge, holds=holds, of=of)

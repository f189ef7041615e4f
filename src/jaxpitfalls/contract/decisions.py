"""The 95%-interval rules every study's claims use: wholly on the claim's side reproduces it, wholly on the other
does not, across an edge is inconclusive with its reason."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..formatting import fixed_at_most_four, short
from ..harness.stats import difference_of_estimates
from .interface import Number
from .tables import base_config_id
from .verdicts import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, SUPPORTING, Judged


def applicable(judged: Judged) -> Judged:
    """The claim as the report shows it: "not testable" where the hardware's largest effect lies below the size
    claimed (`Bound.needs`) or it lacks the effect (`absent_here`: a "no" refutes nothing, a "yes" is not the
    claim's effect); a bound the interval lies wholly beyond is refuted and dropped; else as judged."""
    if judged.absent_here:
        said = judged.measured.removeprefix("not measured: ")  # what it needs, told as such
        return replace(judged, verdict=NOT_TESTABLE, reason="",
                       measured=f"not testable on this hardware: {judged.absent_here}; {said}")
    bound, ratio = judged.bound, judged.judged_ratio
    if bound is not None and ratio is not None and ratio[1] > bound.ratio:  # the run measured more than it allows
        return applicable(replace(judged, bound=None, measured=f"{judged.measured} (measured beyond the at most "
                                  f"{bound.ratio:.3f}x of {bound.what}: that bound is refuted, not used)"))
    if bound is not None and bound.ratio < bound.needs:
        beyond = (f" (the estimate, {ratio[0]:.3f}x, lies above it but not its whole interval: the bound stands)"
                  if ratio is not None and ratio[0] > bound.ratio else "")
        return replace(judged, verdict=NOT_TESTABLE, reason="", measured=(
            f"not testable {bound.scope}: {bound.what} gives at most {bound.ratio:.3f}x{beyond}, below the "
            f"{bound.needs:g}x the claim needs; {judged.measured}"))
    reason = judged.reason
    if reason and bound is not None:  # more samples could find at most this much
        reason += f" (this hardware can show at most {bound.ratio:.3f}x)"
    return replace(judged, reason="", measured=f"{judged.measured}; {reason}" if reason else judged.measured)


def verdict(ok: bool | None) -> str:
    """A claim's verdict from its rule's outcome (None: undecided)."""
    return {True: REPRODUCED, False: NOT_REPRODUCED, None: INCONCLUSIVE}[ok]


def above(low: float, high: float, threshold: float) -> bool | None:
    """True wholly above the threshold, False wholly below, None across it."""
    if low > threshold:
        return True
    return False if high < threshold else None


def opposite(outcome: bool | None) -> bool | None:
    """A rule's outcome turned around (claims that hold below or outside); None stays."""
    return None if outcome is None else not outcome


def within(low: float, high: float, lower: float, upper: float) -> bool | None:
    """True inside the band, False wholly outside, None across an edge."""
    if lower <= low and high <= upper:
        return True
    return False if high < lower or low > upper else None


# Past this many times a run's own samples (its time, about as many times), "more samples" is not an answer: a
# reference told tree_at's first_run_linear "about 336x the samples", which no preset affords
# (docs/decisions.md#more-rounds-at-most-10x).
MORE_ROUNDS_AT_MOST = 10


def to_decide(low: float, high: float, *edges: float, log: bool = False, of: str = "the interval",
              unit: str = "", scatter: float = 1.0, df: float | None = None, processes: int = 0) -> str:
    """Why an interval across a rule's edge cannot tell, and what would ('' where it crosses none): about
    (half-width / distance to the edge)^2 times the samples, if the estimate held (the processes, for a t interval
    on few `df`). `log`: ratios; `scatter`: a fit's Birge ratio (above 1, more samples won't help)."""
    scale = np.log if log else (lambda x: x)
    crossed = [e for e in edges if low < e < high]
    if not crossed:
        return ""
    if log and not 0 < low <= high < np.inf:  # one process: no spread, so no interval to narrow
        return f"undecided: {of} is unbounded (one process, or none over processes)"
    lo, hi = scale(low), scale(high)
    middle, half = (lo + hi) / 2, (hi - lo) / 2
    nearest = min(crossed, key=lambda e: abs(middle - scale(e)))
    distance = abs(middle - scale(nearest))
    # Centred on an edge: near it against the interval's width, or, where the middle lies inside a band whose
    # edges the interval both crosses, against the band's (1.009x [0.010, 99.8] across 0.8-1.25 sits mid-band)
    inside = len(crossed) == 2 and scale(min(crossed)) < middle < scale(max(crossed))
    if distance < 0.05 * ((scale(max(crossed)) - scale(min(crossed))) / 2 if inside else half):
        return (f"undecided: {of} is centred on the edge {short(nearest)}{unit}; more samples decide it only if the "
                "estimate moves")
    leans = "between them" if inside else \
        f"{'above' if middle > scale(nearest) else 'below'} {'it' if len(crossed) == 1 else short(nearest) + unit}"
    crosses = f"undecided: {of} crosses {', '.join(f'{short(e)}{unit}' for e in crossed)} (centred {leans})"
    if scatter > 1:
        return (f"{crosses}; its points lie {scatter:.1f}x farther from one power law than their intervals allow: "
                "the sizes follow no one law, and more samples per point would not narrow it")
    if df is not None and processes and 0 < df < FEW_DF:
        return f"{crosses}; {_processes_to_decide(half, distance, df, processes)}"
    more = (half / distance) ** 2
    said = f"{crosses}; about {more:.{1 if more < 10 else 0}f}x the samples would decide it if the estimate holds"
    if more > MORE_ROUNDS_AT_MOST:
        said += f", over {MORE_ROUNDS_AT_MOST:g}x a run's: another design, not more rounds"
    return said


FEW_DF = 10  # below, Student's t quantile is over 10% wider than the normal's: processes, not rounds, narrow it
MOST_PROCESSES = 64


def _processes_to_decide(half: float, distance: float, df: float, processes: int) -> str:
    """The processes that would narrow a t interval on `df` (some pooled) to `distance`, its spread as measured."""
    from scipy import stats

    pooled = max(df - (processes - 1), 0.0)
    spread = half * np.sqrt(processes) / stats.t.ppf(0.975, df)
    enough = next((p for p in range(processes + 1, MOST_PROCESSES + 1)
                   if stats.t.ppf(0.975, p - 1 + pooled) * spread / np.sqrt(p) < distance), None)
    rests = f"it rests on {df:.3g} degree(s) of freedom over {processes} processes"
    if enough is None:
        return (f"{rests}, and even {MOST_PROCESSES} processes would not decide it if the estimate holds: more than "
                "that, or another design")
    return (f"{rests}: about {enough} processes (`measure.processes`, and `max_processes` where lower) would "
            "decide it if the estimate holds")


@dataclass(frozen=True)
class Decision:
    """A rule's outcome on one interval and what would decide it, from one set of edges so the two never drift."""

    outcome: bool | None
    reason: str = ""

    def verdict(self) -> str:
        """The claim's verdict; the reason goes to `Judged.reason`."""
        return verdict(self.outcome)

    def judged(self, measured: str, **fields: Any) -> Judged:
        """The claim judged by this decision: its verdict and, where undecided, why."""
        return Judged(measured=measured, verdict=self.verdict(), reason=self.reason, **fields)


HOLDS = {
    "above": lambda low, high, edges: above(low, high, *edges),
    "below": lambda low, high, edges: opposite(above(low, high, *edges)),
    "inside": lambda low, high, edges: within(low, high, *edges),
}


def decide(low: float, high: float, *edges: float, holds: str = "above", log: bool = False,
           of: str = "the interval", unit: str = "", scatter: float = 1.0, df: float | None = None,
           processes: int = 0) -> Decision:
    """A claim's rule on its 95% interval: wholly `above` or `below` its edge, or `inside` a band."""
    outcome = HOLDS[holds](low, high, edges)
    reason = "" if outcome is not None else to_decide(low, high, *edges, log=log, of=of, unit=unit,
                                                      scatter=scatter, df=df, processes=processes)
    return Decision(outcome, reason)


def interval(value: float, low: float, high: float, unit: str = "", signed: bool = False, decimals: int = 3) -> str:
    """`1.234x [1.100, 1.300]`: a value and its 95% interval as every table and claim shows them (`signed`:
    `+1.234 ms`), from 100 up in four digits (formatting.fixed_at_most_four)."""
    sign = "+" if signed and value >= 0 else ""
    return f"{sign}{fixed_at_most_four(value, decimals)}{unit} [" + ", ".join(
        fixed_at_most_four(x, decimals) for x in (low, high)) + "]"


def rows(table: pd.DataFrame, **where: Any) -> pd.DataFrame:
    """Rows where every named column equals its value."""
    mask = pd.Series(True, index=table.index)
    for column, value in where.items():
        mask &= table[column] == value
    return table[mask]


def row(table: pd.DataFrame, **where: Any) -> pd.Series:
    """The one row where every named column equals its value; a miss or several raise, naming what the table holds."""
    hits = rows(table, **where)
    if len(hits) == 1:
        return hits.iloc[0]
    held = {column: sorted(map(str, table[column].unique()))[:8] for column in where}
    found = "no row" if hits.empty else f"{len(hits)} rows"
    raise LookupError(f"{found} where {where}; the table holds {held}")


def at_write_up_structure(table: pd.DataFrame, number: Number) -> str | None:
    """The configuration id at the write-up's structure (`number.at`), the base first; None where not run."""
    rows = table
    for key, value in number.at.items():
        rows = rows[rows[key] == value]
    return None if rows.empty else base_config_id(rows)


# Where a verdict rests on a configuration smaller than the write-up's: the engine counts it apart (`SUPPORTING`).
BELOW_STRUCTURE = f"smaller than the write-up's structure ({SUPPORTING})"


def judged_at(table: pd.DataFrame, number: Number, base_id: str) -> tuple[str, str, bool]:
    """Where a headline is judged (the write-up's structure if run, else the base), words saying which, and
    whether it is the write-up's structure."""
    at = at_write_up_structure(table, number)
    if at is None:
        return base_id, f"at the base configuration, {BELOW_STRUCTURE}", False
    ours = table[table.config_id == at].iloc[0]
    differ = {key: theirs for key, theirs in number.scale.items() if key in ours and ours[key] != theirs}
    if not differ:
        return at, "at the write-up's structure", True
    shape = " x ".join(f"{key} {short(value)}" for key, value in number.at.items())
    here = " x ".join(f"{key} {short(ours[key])}" for key in differ)
    return at, (f"at {shape} with {here} (the write-up's: {' x '.join(map(short, differ.values()))}), "
                f"{BELOW_STRUCTURE}"), False


def median_of(steps: pd.DataFrame, config_id: str, variant: str, mode: str) -> tuple[float, float, float]:
    """A variant's median time in one mode (ms) with its 95% interval."""
    r = row(steps, config_id=config_id, variant=variant, mode=mode)
    return r.median_ms, r.median_ci_low_ms, r.median_ci_high_ms


def ratio_of(r: pd.Series) -> tuple[float, float, float]:
    """A comparison row's paired ratio: (estimate, 95% low, high)."""
    return r.ratio, r.ratio_ci_low, r.ratio_ci_high


def ratio_interval(r: pd.Series) -> str:
    """A comparison row's paired ratio: `1.234x [1.100, 1.300]`."""
    return interval(*ratio_of(r), "x")


def difference_of(r: pd.Series) -> tuple[float, float, float]:
    """A comparison row's paired difference in ms: (estimate, 95% low, high)."""
    return r.diff_ms, r.diff_ci_low_ms, r.diff_ci_high_ms


def share_of(part: tuple[float, float, float], whole: tuple[float, float, float]) -> tuple[float, float, float]:
    """A part's share of a positive whole, both (estimate, low, high); each end at its most extreme (no
    independence assumed)."""

    low = part[1] / (whole[2] if part[1] >= 0 else whole[1])
    high = part[2] / (whole[1] if part[2] >= 0 else whole[2])
    return part[0] / whole[0], low, high


def difference_between(a: pd.Series, b: pd.Series) -> tuple[float, float, float]:
    """Comparison row `a`'s paired difference minus `b`'s (ms, 95% interval: combined as independent estimates)."""
    return difference_of_estimates(a.diff_ms, (a.diff_ci_low_ms, a.diff_ci_high_ms),
                                   b.diff_ms, (b.diff_ci_low_ms, b.diff_ci_high_ms))

"""Simulated null release histories: how often the history's own fit names a step where nothing changed, and how
often it finds one planted, counted from the drawn outcomes (history/null_drawn.py).

They are drawn from the measured null history's variance components. The offset between releases is the least sure
one, so rates are also given without it (docs/decisions.md#an-offset-between-releases-in-the-null-histories).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...harness import clustered
from ...harness.stats import wilson
from ..history.null_drawn import (
    BY_CHANCE,
    DRAWN_DECLARED,
    FALSE_DECLARED,
    FALSE_STEPS,
    STEP_DRAWN,
    STEP_TIMED,
    TIMED_DECLARED,
    UPPER_STEP,
    components,
    timed_trial_series,
)

TARGET = (0.05, 0.07)  # at most 5% of null histories name a step, the upper Wilson bound at most 7%


def _ones_of(outcomes: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row, its "1"s and its histories."""
    return outcomes.str.count("1").to_numpy(), outcomes.str.len().to_numpy()


DECLARED = "declared, "  # a power row's kind where the slowed series was declared primary


def _power_row(kind: str, step: float, repeats: int, outcomes: str, series: int) -> dict:
    """A planted step's share found; the timed history's trials clustered by the series each planted in, as a
    series' trials share its measured noise."""
    hits = pd.Series([c == "1" for c in outcomes])
    found, trials = int(hits.sum()), len(hits)
    if kind.endswith("timed") and series > 1 and trials % series == 0:
        clusters = pd.Series(timed_trial_series(trials, series))
        _, low, high = clustered.share_interval(pd.Series(np.nan, index=hits.index), hits, clusters)
    else:
        low, high = wilson(found, trials)
    return {"history": kind, "step": step, "repeats": repeats, "histories": trials, "found": found,
            "share": found / trials, "share_low": low, "share_high": high}


def step_power(drawn: pd.DataFrame, series: int = 1) -> pd.DataFrame:
    """Per planted step: how often the fit named it at its place, in drawn and in the timed history of `series`
    series, with its 95% interval."""
    rows = []
    for arm, kind in ((STEP_DRAWN, "simulated"), (STEP_TIMED, "timed"), (DRAWN_DECLARED, DECLARED + "simulated"),
                      (TIMED_DECLARED, DECLARED + "timed")):
        mine = drawn[drawn.arm == arm]
        rows += [_power_row(kind, step, repeats, outcomes, series)
                 for step, repeats, outcomes in zip(mine.step, mine.repeats, mine.outcomes, strict=True)]
    return pd.DataFrame(rows)


def rates(drawn: pd.DataFrame, arm: str = FALSE_STEPS) -> pd.DataFrame:
    """Per row of `arm` (FALSE_STEPS or FALSE_DECLARED), the share of null histories naming a step, with its Wilson
    interval and target."""
    rows = []
    mine = drawn[drawn.arm == arm]
    for between, factor, n, k, total in zip(mine.between_releases, mine.offsets, mine.repeats, *_ones_of(mine.outcomes),
                                            strict=True):
        k, total = int(k), int(total)
        low, high = wilson(k, total)
        met = "yes" if k / total <= TARGET[0] and high <= TARGET[1] else \
            clustered.against(k / total, low, high, (0.0, TARGET[0]))
        rows.append({"repeats": n, "between_releases": between, "offsets": factor, "histories": total,
                     "naming_a_step": k, "share": k / total, "share_low": low, "share_high": high,
                     "met": met if between != "none" else ""})
    return pd.DataFrame(rows)


def offset_by_chance(drawn: pd.DataFrame) -> float:
    """How often histories without offsets between releases estimated them as large as measured."""
    k, n = _ones_of(drawn[drawn.arm == BY_CHANCE].outcomes)
    return float(k.sum() / n.sum())


def section(ratios: pd.DataFrame, drawn: pd.DataFrame, found: pd.DataFrame, power: pd.DataFrame) -> list[str]:
    """The page's lines on simulated null histories and steps planted in them: `found`, the `drawn` outcomes' `rates`,
    and `power`, their `step_power`."""
    measured = components(ratios)
    jobs_sd = np.sqrt([c.jobs for c in measured])
    releases_sd = np.sqrt([c.releases for c in measured])
    reported = np.concatenate([c.reported for c in measured])
    shown = found.assign(share=[f"{s:.1%} [{lo:.1%}, {hi:.1%}]" for s, lo, hi in
                                zip(found.share, found.share_low, found.share_high, strict=True)],
                         offsets=[f"x{f:.2f}" for f in found.offsets])
    return [
        "### Simulated null histories", "",
        f"Drawn from the measured history's components, per series ({len(measured)} series, "
        f"{ratios.release.nunique()} releases): between jobs of one release a spread of {np.median(jobs_sd):.1%} in "
        f"median (largest {jobs_sd.max():.1%}) against the {np.median(reported):.1%} the jobs' own intervals "
        f"reported (median standard error, each drawn job's with the df of the timed job it came from); between "
        f"releases beyond that {np.median(releases_sd):.1%} in median "
        f"(largest {releases_sd.max():.1%}; histories simulated without it estimate as much in "
        f"{offset_by_chance(drawn):.0%}). Each simulated history goes through the history's own fit; one naming "
        f"a step in any series is a false alarm (target: at most {TARGET[0]:.0%}, the upper Wilson bound at most "
        f"{TARGET[1]:.0%}; `met`: yes where both hold, by its point where only the share does, no where the whole "
        "interval lies above it, cannot tell otherwise). An offset between releases shifts both jobs of a release "
        "alike, which the fit cannot tell from a step, and it is the least sure component: `95% upper bound` "
        "draws every series' offset variance times `offsets`, the smallest factor (powers of "
        f"{UPPER_STEP:g}) at which at most 5% of histories drawn with it estimate offsets as small as measured, so "
        "the target is judged where the estimate may be low as well (at x1.00 the estimate bounds them already: its "
        "rows repeat the measured ones); `none` draws none, to show what the rate owes to them.", "",
        shown.drop(columns=["share_low", "share_high"]).to_markdown(index=False), "",
        *power_lines(power),
        *declared_lines(power, rates(drawn, FALSE_DECLARED)),
    ]


def _shares(power: pd.DataFrame) -> str:
    return "; ".join(f"a {r.step:.0%} step in {r.found} of {r.histories} ({r.share:.1%} [{r.share_low:.1%}, "
                     f"{r.share_high:.1%}])" for r in power.itertuples())


def power_lines(power: pd.DataFrame) -> list[str]:
    """The page's lines on the fit's power to name a planted step, simulated and timed (none where none was)."""
    if power.empty:
        return []
    simulated, timed = (power[power.history == kind] for kind in ("simulated", "timed"))
    lines = [f"Power: histories simulated as above at {simulated.repeats.iloc[0]} jobs a release, one series (drawn) "
             "slowed from a release (drawn) on, every other series unchanged; the fit named the step at its place "
             f"(or where it cannot tell that place from) in: {_shares(simulated)}. Its correction over every series "
             "and release, the offsets between releases it must not take for steps, the jobs' own few degrees of "
             "freedom, and the few a fit its Birge ratio widens rests on (releases less steps less one) cost what is "
             "missing.", ""]
    if len(timed):
        lines += [f"Planted in the timed null history itself ({timed.repeats.iloc[0]} jobs a release), each of its "
                  "series slowed from each later release on in turn, the other series as timed: its own noise, "
                  "offsets and blocks, not drawn ones. Named at its place in: "
                  f"{_shares(timed)} (each interval over the series as clusters: a series' trials share its "
                  "measured noise).", ""]
    return lines


def declared_lines(power: pd.DataFrame, false: pd.DataFrame) -> list[str]:
    """The page's line on a series declared primary: its false steps and the planted steps found in it."""
    if power.empty or false.empty:
        return []
    simulated, timed = (power[power.history == DECLARED + kind] for kind in ("simulated", "timed"))
    if not len(simulated):
        return []
    named = " and ".join(f"{r.naming_a_step} of {r.histories} ({r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}]; "
                         f"{r.met}) with the offsets "
                         + ("at their 95% upper bound" if r.between_releases != "as measured" else "as measured")
                         for r in false.itertuples())
    return [f"Declared primary (`history.primary`: the series corrected over the declared ones alone, here one), "
            f"the slowed series of the same histories was named at its place in: {_shares(simulated)}"
            + (f"; in the timed history: {_shares(timed)}" if len(timed) else "")
            + f". Where nothing changed, the declared series (each null history declares one in turn) named a step "
            f"in {named} (target at most {TARGET[0]:.0%}).", ""]

"""Simulated null release histories: how often the history's own fit names a step where nothing changed.

They are drawn from the measured null history's variance components. The offset between releases is the least sure
one, so rates are also given without it (docs/decisions.md#an-offset-between-releases-in-the-null-histories).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ...harness.stats import Z_95, wilson
from ..history.changepoints import Step, resting_alone
from ..history.history import fits
from ..history.release_levels import SERIES, job_logs, release_levels, series_logs

HISTORIES = 500  # enough that a 5% false-step share has a Wilson interval within +-2 points
TARGET = (0.05, 0.07)  # at most 5% of null histories name a step, the upper Wilson bound at most 7%
PLANTED, POWER_HISTORIES = (0.03, 0.05, 0.10), 200  # the steps planted to measure the fit's power, histories each
UPPER_STEP, UPPER_HISTORIES = 1.25, 200  # the offsets' upper bound: searched on powers of this, histories each


@dataclass(frozen=True)
class Components:
    """One series' log-scale variance components: between a release's jobs, between releases beyond that, and the
    jobs' reported standard errors."""

    jobs: float
    releases: float
    reported: tuple[float, ...]


def components(ratios: pd.DataFrame) -> list[Components]:
    """Per series of a job table, its components by the method of moments, the blocks' offsets taken out. Raises
    where no release was timed twice."""
    jobs, found = job_logs(ratios), []
    reported = np.sqrt(jobs["var"].to_numpy())
    for _, at, y, _, by_release in series_logs(jobs):
        repeated = [rows for rows in by_release if rows.size > 1]
        if not repeated:
            raise ValueError("no release timed in two jobs: the spread between jobs cannot be measured")
        jobs_var = float(sum(np.var(y[rows], ddof=1) * (rows.size - 1) for rows in repeated)
                         / sum(rows.size - 1 for rows in repeated))
        means = np.array([y[rows].mean() for rows in by_release])
        counts = np.array([rows.size for rows in by_release])
        releases_var = (max(0.0, float(np.var(means, ddof=1)) - jobs_var * float((1 / counts).mean()))
                        if means.size > 1 else 0.0)
        found.append(Components(jobs_var, releases_var, tuple(reported[at])))
    return found


def _history(rng: np.random.Generator, measured: list[Components], releases: int, repeats: int) -> pd.DataFrame:
    """One simulated null history's job table: every ratio's truth 1."""
    y, half = [], []
    for c in measured:
        offsets = rng.normal(0, np.sqrt(c.releases), releases)
        for release in range(releases):
            for _ in range(repeats):
                y.append(offsets[release] + rng.normal(0, np.sqrt(c.jobs)))
                half.append(Z_95 * rng.choice(c.reported))
    y, half, n = np.array(y), np.array(half), len(measured)
    return pd.DataFrame({
        "release": np.tile(np.repeat([f"r{r}" for r in range(releases)], repeats), n),
        "job": np.tile(np.arange(1, repeats + 1), n * releases), "config_id": "base",
        "variant": np.repeat([f"s{index}" for index in range(n)], releases * repeats), "baseline": "floor",
        "mode": "m", "ratio": np.exp(y), "ratio_ci_low": np.exp(y - half), "ratio_ci_high": np.exp(y + half),
        "versions": ""})


def _order(releases: int) -> list[str]:
    """A simulated history's releases, in order."""
    return [f"r{r}" for r in range(releases)]


def _named(ratios: pd.DataFrame, order: list[str]) -> Iterator[tuple[tuple, Step]]:
    """Each step the fit names in `ratios` (releases in `order`), with its series' key (none resting on one job)."""
    for key, _, fit in fits(release_levels(ratios), order):
        yield from ((key, step) for step in fit.steps if not resting_alone(fit, step))


def names_a_step(ratios: pd.DataFrame, releases: int) -> bool:
    """Whether the history's fit names a step in any series of `ratios`."""
    return next(_named(ratios, _order(releases)), None) is not None


def false_step_rate(measured: list[Components], releases: int, repeats: int, histories: int = HISTORIES,
                    seed: int = 0) -> tuple[int, int]:
    """How many of `histories` simulated null histories name a step, of how many."""
    rng = np.random.default_rng(seed)
    return sum(names_a_step(_history(rng, measured, releases, repeats), releases) for _ in range(histories)), histories


def finds_step(ratios: pd.DataFrame, order: list[str], series: tuple, at: int) -> bool:
    """Whether the fit names the step planted in `series` at release `order[at]` (or a place it cannot tell from),
    not resting on one job."""
    place = (order[at - 1], order[at])
    return any(key == series and ((s.before, s.after) == place or place in s.also_between)
               for key, s in _named(ratios, order))


def _planted(history: pd.DataFrame, later: np.ndarray, step: float) -> pd.DataFrame:
    """`history` with the rows `later` slowed by `step`."""
    history.loc[later, ["ratio", "ratio_ci_low", "ratio_ci_high"]] *= 1 + step
    return history


def _power_row(kind: str, step: float, repeats: int, found: int, trials: int) -> dict:
    low, high = wilson(found, trials)
    return {"history": kind, "step": step, "repeats": repeats, "histories": trials, "found": found,
            "share": found / trials, "share_low": low, "share_high": high}


def step_power(ratios: pd.DataFrame, steps: tuple[float, ...] = PLANTED, repeats: int = 2,
               histories: int = POWER_HISTORIES, seed: int = 2) -> pd.DataFrame:
    """Per planted step: how often the fit names it at its place, one drawn series slowed from a drawn release on,
    with a Wilson interval; then the same planted in the timed history itself (`planted_in_timed`)."""
    measured, releases = components(ratios), ratios.release.nunique()
    rng = np.random.default_rng(seed)
    rows = []
    for step in steps:
        found = 0
        for _ in range(histories):
            history = _history(rng, measured, releases, repeats)
            variant, at = f"s{rng.integers(len(measured))}", int(rng.integers(1, releases))
            later = ((history.variant == variant) & (history.release.str[1:].astype(int) >= at)).to_numpy()
            found += finds_step(_planted(history, later, step), _order(releases), ("base", variant, "floor", "m"), at)
        rows.append(_power_row("simulated", step, repeats, found, histories))
    return pd.concat([pd.DataFrame(rows), planted_in_timed(ratios, steps)], ignore_index=True)


def planted_in_timed(ratios: pd.DataFrame, steps: tuple[float, ...] = PLANTED) -> pd.DataFrame:
    """Per step: how often the fit names it at its place, planted in the timed history itself (each series from each
    later release on in turn): its real noise and offsets, which a simulation draws."""
    order, repeats = list(dict.fromkeys(ratios.release)), _repeats(ratios)
    place = ratios.release.map({r: i for i, r in enumerate(order)}).to_numpy()
    series = pd.Series(list(zip(*(ratios[c] for c in SERIES), strict=True)), index=ratios.index)
    trials = [(key, at) for key in dict.fromkeys(series) for at in range(1, len(order))]
    rows = []
    for step in steps:
        found = sum(finds_step(_planted(ratios.copy(), ((series == key) & (place >= at)).to_numpy(), step), order,
                               key, at) for key, at in trials)
        rows.append(_power_row("timed", step, repeats, found, len(trials)))
    return pd.DataFrame(rows)


def _repeats(ratios: pd.DataFrame) -> int:
    """The jobs a release was timed in, as the history ran it (the median over releases and series, 1.5 -> 2)."""
    return int(np.floor(job_logs(ratios).groupby(["release", *SERIES]).size().median() + 0.5))


def _offsets_times(measured: list[Components], factor: float) -> list[Components]:
    return [replace(c, releases=c.releases * factor) for c in measured]


def offsets_upper_bound(ratios: pd.DataFrame, histories: int = UPPER_HISTORIES, seed: int = 3) -> float | None:
    """The factor on every series' offset variance between releases at its 95% upper bound: the smallest power of
    UPPER_STEP at which at most 5% of histories drawn with it estimate offsets as small in all as measured (each
    factor on the same draws); None where none was measured."""
    measured, releases, repeats = components(ratios), ratios.release.nunique(), _repeats(ratios)
    observed = sum(c.releases for c in measured)
    factor = 1.0
    while observed > 0 and factor < 1e6:
        rng = np.random.default_rng(seed)
        drawn = _offsets_times(measured, factor)
        as_small = sum(sum(c.releases for c in components(_history(rng, drawn, releases, repeats))) <= observed
                       for _ in range(histories))
        if as_small <= 0.05 * histories:
            return factor
        factor *= UPPER_STEP
    return None


def rates(ratios: pd.DataFrame, repeats: tuple[int, ...] = (1, 2), histories: int = HISTORIES) -> pd.DataFrame:
    """Per `repeats`, the share of simulated null histories naming a step, with its Wilson interval and target: at the
    measured offsets between releases, at their 95% upper bound (`offsets`: the factor on their variance), and
    without them."""
    measured, releases = components(ratios), ratios.release.nunique()
    upper = offsets_upper_bound(ratios)
    drawn = [("as measured", 1.0), *([("95% upper bound", upper)] if upper is not None else []), ("none", 0.0)]
    rows = []
    for between, factor in drawn:
        for n in repeats:
            k, total = false_step_rate(_offsets_times(measured, factor), releases, n, histories)
            low, high = wilson(k, total)
            met = "yes" if k / total <= TARGET[0] and high <= TARGET[1] else "no"
            rows.append({"repeats": n, "between_releases": between, "offsets": factor, "histories": total,
                         "naming_a_step": k, "share": k / total, "share_low": low, "share_high": high,
                         "met": met if between != "none" else ""})
    return pd.DataFrame(rows)


def offset_by_chance(ratios: pd.DataFrame, histories: int = HISTORIES, seed: int = 1) -> float:
    """How often histories without an offset between releases estimate one as large as the measured history's: a
    small share says it is more than noise."""
    measured, releases, repeats = components(ratios), ratios.release.nunique(), _repeats(ratios)
    observed = sum(c.releases for c in measured)
    rng = np.random.default_rng(seed)
    return sum(sum(c.releases for c in components(_history(rng, _offsets_times(measured, 0.0), releases, repeats)))
               >= observed for _ in range(histories)) / histories


def section(ratios: pd.DataFrame, found: pd.DataFrame, power: pd.DataFrame | None = None) -> list[str]:
    """The page's lines on simulated null histories (`found`: `rates`) and steps planted in them (`power`:
    `step_power`)."""
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
        f"reported (median standard error); between releases beyond that {np.median(releases_sd):.1%} in median "
        f"(largest {releases_sd.max():.1%}; histories simulated without it estimate as much in "
        f"{offset_by_chance(ratios):.0%}). Each simulated history goes through the history's own fit; one naming "
        f"a step in any series is a false alarm (target: at most {TARGET[0]:.0%}, the upper Wilson bound at most "
        f"{TARGET[1]:.0%}). An offset between releases shifts both jobs of a release alike, which the fit cannot "
        "tell from a step, and it is the least sure component: `95% upper bound` draws every series' offset "
        "variance times `offsets`, the smallest factor (powers of "
        f"{UPPER_STEP:g}) at which at most 5% of histories drawn with it estimate offsets as small as measured, so "
        "the target is judged where the estimate may be low as well; `none` draws none, to show what the rate owes "
        "to them.", "",
        shown.drop(columns=["share_low", "share_high"]).to_markdown(index=False), "",
        *power_lines(power),
    ]


def _shares(power: pd.DataFrame) -> str:
    return "; ".join(f"a {r.step:.0%} step in {r.found} of {r.histories} ({r.share:.1%} [{r.share_low:.1%}, "
                     f"{r.share_high:.1%}])" for r in power.itertuples())


def power_lines(power: pd.DataFrame | None) -> list[str]:
    """The page's lines on the fit's power to name a planted step, simulated and timed."""
    if power is None or power.empty:
        return []
    simulated, timed = (power[power.history == kind] for kind in ("simulated", "timed"))
    lines = [f"Power: histories simulated as above at {simulated.repeats.iloc[0]} jobs a release, one series (drawn) "
             "slowed from a release (drawn) on, every other series unchanged; the fit named the step at its place "
             f"(or where it cannot tell that place from) in: {_shares(simulated)}. Its correction over every series "
             "and release, the offsets between releases it must not take for steps, and the few degrees of freedom "
             "a fit its Birge ratio widens rests on (releases less steps less one) cost what is missing.", ""]
    if len(timed):
        lines += [f"Planted in the timed null history itself ({timed.repeats.iloc[0]} jobs a release), each of its "
                  "series slowed from each later release on in turn, the other series as timed: its own noise, "
                  "offsets and blocks, not drawn ones. Named at its place in: "
                  f"{_shares(timed)} (a series' trials share its measured noise: not independent draws).", ""]
    return lines

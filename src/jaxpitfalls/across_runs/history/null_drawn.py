"""Null release histories drawn from a measured one, each through the history's own fit: one outcome a history.

The outcomes are kept beside the calibration page, which counts its rates from them without drawing thousands of
histories again; each arm has its own seeded stream, so its first histories can be drawn again as a check.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import count, islice
from pathlib import Path

import numpy as np
import pandas as pd

from .changepoints import Step, resting_alone, upper_quantile
from .history import fits
from .primary import series_name
from .release_levels import SERIES, job_logs, release_levels, series_logs

HISTORIES = 500  # enough that a 5% false-step share has a Wilson interval within +-2 points
PLANTED, POWER_HISTORIES = (0.03, 0.05, 0.10), 200  # the steps planted to measure the fit's power, histories each
UPPER_STEP, UPPER_HISTORIES = 1.25, 200  # the offsets' upper bound: searched on powers of this, histories each
POWER_REPEATS = 2  # jobs a release in the histories steps are planted in

# The arms: whether a history names a step (`offsets`: the factor on the measured offsets between releases);
# whether drawn offsets come out as small in all as measured, or as large without any (the offsets' upper bound and
# whether they are more than noise); whether a planted step is found, in drawn histories and in the timed one; and,
# with one series declared primary (history.primary), whether a step is named in it where none is, and whether a
# step planted in it is found (the same histories as the undeclared arms).
FALSE_STEPS, AS_SMALL, BY_CHANCE, STEP_DRAWN, STEP_TIMED = (
    "false steps", "offsets as small", "offsets by chance", "step simulated", "step timed")
FALSE_DECLARED, DRAWN_DECLARED, TIMED_DECLARED = (
    "false steps, declared", "step simulated, declared", "step timed, declared")
STEPS_DRAWN = (STEP_DRAWN, DRAWN_DECLARED)  # arms drawing POWER_HISTORIES a planted step, one stream
COLUMNS = ["arm", "between_releases", "offsets", "repeats", "step", "outcomes"]  # outcomes: "0"/"1" per history


@dataclass(frozen=True)
class Components:
    """One series' log-scale variances: between a release's jobs, between releases beyond, jobs' reported errors."""

    jobs: float
    releases: float
    reported: tuple[float, ...]
    dfs: tuple[float, ...] = ()  # each reported error's degrees of freedom; none: read as normal


def components(ratios: pd.DataFrame) -> list[Components]:
    """Per series of a job table, its components by moments, blocks taken out; raises where no release ran twice."""
    jobs, found = job_logs(ratios), []
    reported, dfs = np.sqrt(jobs["var"].to_numpy()), jobs.job_df.to_numpy()
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
        found.append(Components(jobs_var, releases_var, tuple(reported[at]), tuple(dfs[at])))
    return found


def history(rng: np.random.Generator, measured: list[Components], releases: int, repeats: int) -> pd.DataFrame:
    """One simulated null history's job table: every ratio's truth 1."""
    y, half, dfs = [], [], []
    for c in measured:
        offsets = rng.normal(0, np.sqrt(c.releases), releases)
        for release in range(releases):
            for _ in range(repeats):
                y.append(offsets[release] + rng.normal(0, np.sqrt(c.jobs)))
                chosen = rng.integers(len(c.reported))
                dfs.append(c.dfs[chosen] if c.dfs else np.inf)
                half.append(upper_quantile(0.025, dfs[-1]) * c.reported[chosen])
    y, half, n = np.array(y), np.array(half), len(measured)
    return pd.DataFrame({
        "release": np.tile(np.repeat([f"r{r}" for r in range(releases)], repeats), n),
        "job": np.tile(np.arange(1, repeats + 1), n * releases), "config_id": "base",
        "variant": np.repeat([f"s{index}" for index in range(n)], releases * repeats), "baseline": "floor",
        "mode": "m", "ratio": np.exp(y), "ratio_ci_low": np.exp(y - half), "ratio_ci_high": np.exp(y + half),
        "ratio_df": dfs, "versions": ""})


def _order(releases: int) -> list[str]:
    return [f"r{r}" for r in range(releases)]


def _named(ratios: pd.DataFrame, order: list[str], primary: tuple[str, ...] = ()) -> Iterator[tuple[tuple, Step]]:
    """Each step the fit names in `ratios` (releases in `order`, `primary` declared), with its series' key (none
    resting on one job)."""
    for key, _, fit in fits(release_levels(ratios), order, primary):
        yield from ((key, step) for step in fit.steps if not resting_alone(fit, step))


def names_a_step(ratios: pd.DataFrame, releases: int, declared: tuple | None = None) -> bool:
    """Whether the history's fit names a step in any series of `ratios`, or in the `declared` one alone."""
    primary = (series_name(declared),) if declared else ()
    return any(declared in (None, key) for key, _ in _named(ratios, _order(releases), primary))


def finds_step(ratios: pd.DataFrame, order: list[str], series: tuple, at: int, declare: bool = False) -> bool:
    """Whether the fit names the step planted in `series` at release `order[at]` (or a place it cannot tell from),
    not resting on one job (`declare`: `series` declared primary)."""
    place = (order[at - 1], order[at])
    return any(key == series and ((s.before, s.after) == place or place in s.also_between)
               for key, s in _named(ratios, order, (series_name(series),) if declare else ()))


def _planted(table: pd.DataFrame, later: np.ndarray, step: float) -> pd.DataFrame:
    table.loc[later, ["ratio", "ratio_ci_low", "ratio_ci_high"]] *= 1 + step
    return table


def repeats_timed(ratios: pd.DataFrame) -> int:
    """The jobs a release was timed in, as the history ran it (the median over releases and series, 1.5 -> 2)."""
    return int(np.floor(job_logs(ratios).groupby(["release", *SERIES]).size().median() + 0.5))


def _offsets_times(measured: list[Components], factor: float) -> list[Components]:
    return [replace(c, releases=c.releases * factor) for c in measured]


@dataclass(frozen=True)
class DrawnFrom:
    """What every arm draws from."""

    ratios: pd.DataFrame
    components: list[Components]
    releases: int
    repeats: int
    offsets: float  # the measured offsets' variance between releases, summed over series

    @classmethod
    def of(cls, ratios: pd.DataFrame) -> DrawnFrom:
        measured = components(ratios)
        return cls(ratios, measured, ratios.release.nunique(), repeats_timed(ratios),
                   sum(c.releases for c in measured))


def false_steps(measured: list[Components], releases: int, repeats: int, seed: int = 0,
                declare: bool = False) -> Iterator[int]:
    """Per simulated null history in turn, whether the fit names a step in any series; `declare`: in the k-th
    series, declared primary in the k-th history."""
    rng = np.random.default_rng(seed)
    for k in count():
        declared = ("base", f"s{k % len(measured)}", "floor", "m") if declare else None
        yield int(names_a_step(history(rng, measured, releases, repeats), releases, declared))


def _step_draw(rng: np.random.Generator, m: DrawnFrom) -> tuple[pd.DataFrame, str, int]:
    """A history, the series and the release a step is planted in."""
    drawn = history(rng, m.components, m.releases, POWER_REPEATS)
    return drawn, f"s{rng.integers(len(m.components))}", int(rng.integers(1, m.releases))


def _steps_found(m: DrawnFrom, step: float, skip: int, seed: int = 2, declare: bool = False) -> Iterator[int]:
    """Per history in turn (after `skip`), whether the fit names `step` at its place (`declare`d primary)."""
    rng = np.random.default_rng(seed)
    for _ in range(skip):
        _step_draw(rng, m)
    while True:
        drawn, variant, at = _step_draw(rng, m)
        later = ((drawn.variant == variant) & (drawn.release.str[1:].astype(int) >= at)).to_numpy()
        yield int(finds_step(_planted(drawn, later, step), _order(m.releases), ("base", variant, "floor", "m"), at,
                             declare))


def timed_trial_series(trials: int, series: int) -> np.ndarray:
    """The series each of `_planted_in_timed`'s trials planted in (they run series by series)."""
    return np.arange(trials) // (trials // series)


def _planted_in_timed(ratios: pd.DataFrame, step: float, declare: bool = False) -> Iterator[int]:
    """Per trial, whether the fit names `step` planted in the timed history itself (each series from each later
    release on in turn): its real noise and offsets."""
    order = list(dict.fromkeys(ratios.release))
    place = ratios.release.map({r: i for i, r in enumerate(order)}).to_numpy()
    series = pd.Series(list(zip(*(ratios[c] for c in SERIES), strict=True)), index=ratios.index)
    for key, at in [(key, at) for key in dict.fromkeys(series) for at in range(1, len(order))]:
        yield int(finds_step(_planted(ratios.copy(), ((series == key) & (place >= at)).to_numpy(), step), order,
                             key, at, declare))


def _offsets_drawn(m: DrawnFrom, factor: float, seed: int) -> Iterator[float]:
    """Per history in turn, the offsets' variance one drawn with `factor` on them estimates, summed over series."""
    rng, drawn = np.random.default_rng(seed), _offsets_times(m.components, factor)
    while True:
        yield sum(c.releases for c in components(history(rng, drawn, m.releases, m.repeats)))


def outcomes(m: DrawnFrom, arm: str, offsets: float, repeats: int, step: float, skip: int) -> Iterator[int]:
    """An arm's outcomes, history by history in its stream's order."""
    if arm == FALSE_STEPS:
        return false_steps(_offsets_times(m.components, offsets), m.releases, repeats)
    if arm == AS_SMALL:
        return (int(v <= m.offsets) for v in _offsets_drawn(m, offsets, seed=3))
    if arm == BY_CHANCE:
        return (int(v >= m.offsets) for v in _offsets_drawn(m, 0.0, seed=1))
    if arm == FALSE_DECLARED:
        return false_steps(_offsets_times(m.components, offsets), m.releases, repeats, declare=True)
    if arm in STEPS_DRAWN:
        return _steps_found(m, step, skip, declare=arm == DRAWN_DECLARED)
    if arm in (STEP_TIMED, TIMED_DECLARED):
        return _planted_in_timed(m.ratios, step, declare=arm == TIMED_DECLARED)
    raise ValueError(f"no arm {arm!r}: one of {FALSE_STEPS}, {AS_SMALL}, {BY_CHANCE}, {STEP_DRAWN}, {STEP_TIMED}, "
                     f"{FALSE_DECLARED}, {DRAWN_DECLARED}, {TIMED_DECLARED}")


def _row(m: DrawnFrom, arm: str, between: str, offsets: float, repeats: int, step: float, count: int | None,
         skip: int = 0) -> dict:
    """One arm's row: its first `count` outcomes (None: all of a finite arm)."""
    found = islice(outcomes(m, arm, offsets, repeats, step, skip), count)
    return {"arm": arm, "between_releases": between, "offsets": offsets, "repeats": repeats, "step": step,
            "outcomes": "".join(str(o) for o in found)}


def _bounds(outcomes: str) -> bool:
    """Whether at most 5% of an AS_SMALL row's histories estimated offsets as small in all as measured."""
    return outcomes.count("1") <= 0.05 * len(outcomes)


def upper_bound(table: pd.DataFrame) -> float | None:
    """The offsets' 95% upper bound: the first factor of `table`'s AS_SMALL search that `_bounds`; None if none."""
    searched = table[table.arm == AS_SMALL]
    return next((float(f) for f, o in zip(searched.offsets, searched.outcomes, strict=True) if _bounds(o)), None)


def drawn(ratios: pd.DataFrame, repeats: tuple[int, ...] = (1, 2), histories: int = HISTORIES,
          steps: tuple[float, ...] = PLANTED, power_histories: int = POWER_HISTORIES,
          upper_histories: int = UPPER_HISTORIES) -> pd.DataFrame:
    """Every arm's outcomes: the offsets' upper bound searched on powers of UPPER_STEP, then false steps per
    `repeats` at the measured offsets, at that bound and without them, then the other arms."""
    m, searched, upper = DrawnFrom.of(ratios), [], None
    factor = 1.0
    while m.offsets > 0 and factor < 1e6 and upper is None:
        searched.append(_row(m, AS_SMALL, "", factor, m.repeats, 0.0, upper_histories))
        upper = factor if _bounds(searched[-1]["outcomes"]) else None
        factor *= UPPER_STEP
    between = [("as measured", 1.0), *([("95% upper bound", upper)] if upper is not None else []), ("none", 0.0)]
    rows = [*searched, *(_row(m, FALSE_STEPS, name, f, n, 0.0, histories) for name, f in between for n in repeats)]
    rows.append(_row(m, BY_CHANCE, "", 0.0, m.repeats, 0.0, histories))
    rows += [_row(m, STEP_DRAWN, "", 1.0, POWER_REPEATS, step, power_histories, skip=i * power_histories)
             for i, step in enumerate(steps)]
    rows += [_row(m, STEP_TIMED, "", 1.0, m.repeats, step, None) for step in steps]
    rows += [_row(m, FALSE_DECLARED, name, f, POWER_REPEATS, 0.0, histories) for name, f in between[:-1]]
    rows += [_row(m, DRAWN_DECLARED, "", 1.0, POWER_REPEATS, step, power_histories, skip=i * power_histories)
             for i, step in enumerate(steps)]
    rows += [_row(m, TIMED_DECLARED, "", 1.0, m.repeats, step, None) for step in steps]
    return pd.DataFrame(rows, columns=COLUMNS)


def read(path: str | Path) -> pd.DataFrame:
    """A kept table of outcomes, its outcomes as strings."""
    return pd.read_csv(path, dtype={"between_releases": str, "outcomes": str}, keep_default_na=False)


def drawn_again(ratios: pd.DataFrame, table: pd.DataFrame, first: int) -> pd.DataFrame:
    """`table`'s arms, the first `first` outcomes of each drawn again by this checkout."""
    m, rows, skips = DrawnFrom.of(ratios), [], dict.fromkeys(STEPS_DRAWN, 0)
    for r in table.itertuples():
        rows.append(_row(m, r.arm, r.between_releases, r.offsets, r.repeats, r.step, first, skips.get(r.arm, 0)))
        if r.arm in skips:
            skips[r.arm] += len(r.outcomes)
    return pd.DataFrame(rows, columns=COLUMNS)

"""The compare gate on the calibration's real rows: its power after its correction and its false fails, which per-row
rates do not show. Subsets of SUBSET rows stand for a small project's table.
"""

from __future__ import annotations

import glob
import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from ...harness import clustered, moderated, stats
from ..comparison.familywise import KEY, SPIKE, WHOLE, gate_rate, one_row_reach, surviving
from ..comparison.lockstep import estimated
from ..comparison.sign_flip import global_p
from .between_processes import aa_jobs, drawn, spreads

SUBSET, SUBSETS = 16, 200
RATE = gate_rate("lockstep")  # the rate at which the lockstep gate names rows
# A power target's verdict in words (clustered.against): a miss whose interval still reaches the target says so.
_MET = {**clustered.IN_WORDS,
        "cannot tell": "cannot tell: below 90% by its point, its interval reaching it"}
COLUMNS = ["side", "injected", "rows", "named", "named_share", "named_low", "named_high", "gate_fails",
           f"named_share_{SUBSET}", f"gate_fails_{SUBSET}", "half_width_named", "half_width_not_named"]


def _named(rows: pd.DataFrame, threshold: float) -> pd.Series:
    return (rows.verdict == "regressed") & surviving(rows, "ratio", threshold, rate=RATE)


def _tests(rows: pd.DataFrame, threshold: float) -> tuple[int, bool]:
    """Rows named, and whether the rows as a whole read slower."""
    whole = global_p(rows, threshold)
    return int(_named(rows, threshold).sum()), whole is not None and whole <= WHOLE


def judged(rows: pd.DataFrame, threshold: float) -> tuple[int, bool]:
    """How many rows the gate names, and whether it fails (a row named, or the rows as a whole slower)."""
    named, whole = _tests(rows, threshold)
    return named, bool(named or whole)


def _half_width(rows: pd.DataFrame) -> float:
    """The rows' median relative half-width (nan without rows): what decides whether a change can pass."""
    return float(((rows.ratio_ci_high - rows.ratio_ci_low) / 2 / rows.ratio).median()) if len(rows) else np.nan


def gate_table(table: pd.DataFrame, threshold: float, seed: int = 0) -> pd.DataFrame:
    """Per side against the first: the gate on all its rows and on SUBSETS random subsets of SUBSET rows."""
    rng = np.random.default_rng(seed)
    found = []
    for side, rows in table.groupby("side", sort=False):
        named, fails = judged(rows, threshold)
        which = _named(rows, threshold)
        _, low, high = clustered.share_interval(clustered.margins(rows, 1.0, threshold)["regressed"], which,
                                                rows.config_id)
        small = [judged(rows.iloc[rng.choice(len(rows), SUBSET, replace=False)], threshold)
                 for _ in range(SUBSETS if len(rows) > SUBSET else 0)]
        found.append({"side": side, "injected": float(rows.injected.iloc[0]), "rows": len(rows), "named": named,
                      "named_share": named / len(rows), "named_low": low, "named_high": high, "gate_fails": fails,
                      f"named_share_{SUBSET}": np.mean([n / SUBSET for n, _ in small]) if small else np.nan,
                      f"gate_fails_{SUBSET}": np.mean([f for _, f in small]) if small else np.nan,
                      "half_width_named": _half_width(rows[which]), "half_width_not_named": _half_width(rows[~which])})
    return pd.DataFrame(found, columns=COLUMNS)


def gate_lines(gates: pd.DataFrame, threshold: float, edge: EdgeRuns | None = None
               ) -> list[str]:
    """The page's section: the gate per side, and the page's targets read from it."""
    lines = ["## The gate, after its correction", "",
             f"Each side judged as `compare.fail_on_regression` would judge it alone, at the threshold {threshold:g}: "
             f"`named`, the rows it names (regressed, surviving Benjamini-Hochberg at {RATE:.0%} over the side's "
             "rows); `gate_fails`, whether it fails (a row named, or the rows as a whole slower by sign flips of "
             f"whole processes, at {WHOLE:.0%}); the same over {SUBSETS} random subsets of {SUBSET} rows "
             "(overlapping: not independent draws); `named_low`-`named_high`, the named share's 95% interval over "
             "its effective rows (a configuration's rows share its processes).", "",
             gates.to_markdown(index=False, floatfmt=".3f"), ""]
    for g in gates.itertuples():
        if round(g.injected, 2) >= 1.10:
            met = _MET[clustered.against(g.named_share, g.named_low, g.named_high, (0.9, 1.0))]
            lines.append(f"- injected {g.injected:g}: {g.named} of {g.rows} rows named ({g.named_share:.1%} "
                         f"[{g.named_low:.1%}, {g.named_high:.1%}]; target at least 90%: {met})"
                         + _why_not(g, threshold))
        elif round(g.injected, 4) == 1:
            lines.append(f"- A/A ({g.side}): the gate {'**failed**' if g.gate_fails else 'passed'} on this one run's "
                         f"{g.rows} rows, and failed on {getattr(g, f'gate_fails_{SUBSET}'):.1%} of its {SUBSETS} "
                         f"subsets of {SUBSET} (the target, at most 5% of A/A runs, is a rate over runs: one run's "
                         "overlapping subsets do not estimate it)")
    if edge:
        lines.append(f"- {edge_words(edge)}: each A/A job drawn afresh, run by run, as Gaussian process means "
                     "with its spreads as timed (the offset its rows share, each row's own about it), every row "
                     "slowed by exactly the threshold, each job's rows pooled alone as a lockstep of two sides pools "
                     f"them. A run holds every job as often as makes {EDGE_ROWS} rows or more, whatever the "
                     "calibration's rows per configuration: the rate grows with the rows a run judges (each row whose "
                     "interval is too narrow is one more chance). Each row's spread as timed carries its own sampling "
                     "error: drawn rows are more varied than the truth's and the prior fitted to them weaker, so the "
                     "rate is that of a world with these spreads, not a bound on the gate's; and Gaussian, where a "
                     "process's values may have heavier tails. The interval is over runs, given those spreads "
                     "(docs/decisions.md, the edge runs drawn from the calibration's spreads)")
    return [*lines, ""]


EDGE_RUNS = 500
# The rows an edge run judges at least, whatever the calibration's design: its rate grows with them (each row whose
# interval is too narrow is one more chance), so calibrations of different rows per configuration compare.
EDGE_ROWS = 104


class EdgeRuns(NamedTuple):
    """Edge runs: failed, runs, rows a run, the A/A rows drawn, the failed share's Wilson interval; each test's
    failed runs."""

    fails: int
    runs: int
    rows: int
    source: int
    low: float
    high: float
    named: int
    whole: int


def _edge_run(jobs: list[tuple[tuple[str, str], int, float, np.ndarray]], passes: int, threshold: float,
              rng: np.random.Generator) -> pd.DataFrame:
    """One run at the threshold's edge: every job drawn `passes` times as Gaussian process means of its spreads,
    every row slowed by exactly the threshold, each draw pooled as a lockstep job pools its rows."""
    rows: list[dict] = []
    for _ in range(passes):
        for (study, config_id), processes, shared, own in jobs:
            values = drawn(shared, own, processes, rng) + math.log1p(threshold)
            label = f"{config_id}#{len(rows)}"
            rows += [{"study": study, "config_id": label, **estimated(found, row, threshold)}
                     for found, row in zip(moderated.pooled(values), values, strict=True)]
    return pd.DataFrame(rows)


def edge_runs(table: pd.DataFrame, threshold: float, seed: int = 0, runs: int = EDGE_RUNS) -> EdgeRuns | None:
    """`runs` runs of good code at the threshold's edge judged by the gate, each A/A job drawn afresh from its
    rows' spreads as timed; None without A/A rows of two processes or more."""
    jobs = [(key, logs.shape[1], *spreads(logs)) for key, logs in aa_jobs(table)]
    source = sum(len(own) for *_, own in jobs)
    if not source:
        return None
    passes, rng = -(-EDGE_ROWS // source), np.random.default_rng(seed)  # as many as make EDGE_ROWS rows
    tests = np.array([_tests(_edge_run(jobs, passes, threshold, rng), threshold) for _ in range(runs)], dtype=bool)
    fails = int(tests.any(axis=1).sum())
    return EdgeRuns(fails, runs, passes * source, source, *stats.wilson(fails, runs), *map(int, tests.sum(axis=0)))


def edge_words(edge: EdgeRuns) -> str:
    """The edge runs' share against the target, for the brief and the section."""
    met = clustered.IN_WORDS[clustered.against(edge.fails / edge.runs, edge.low, edge.high, (0.0, 0.05))]
    passes = edge.rows // edge.source
    times = "" if passes == 1 else f", each job drawn {passes} times a run"
    return (f"{edge.runs} runs of {edge.rows} rows of good code at the threshold's edge (every row slowed by exactly "
            f"the threshold), Gaussian draws of the {edge.source} A/A rows' spreads as timed{times}, failed it in "
            f"{edge.fails} ({edge.fails / edge.runs:.1%} [{edge.low:.1%}, {edge.high:.1%}]; target at most 5%: "
            f"{met}): a row named in {_runs_share(edge.named, edge.runs)} (the naming's share {RATE:.0%}), the rows "
            f"as a whole slower in {_runs_share(edge.whole, edge.runs)} (its {WHOLE:.0%})")


def _runs_share(count: int, runs: int) -> str:
    low, high = stats.wilson(count, runs)
    return f"{count / runs:.1%} [{low:.1%}, {high:.1%}]"


def _why_not(g, threshold: float) -> str:
    if g.named == g.rows or not np.isfinite(g.half_width_not_named):
        return ""
    room = g.injected / (1 + threshold) - 1
    return (f"; the rows not named had a median half-width of {g.half_width_not_named:.1%} against the named rows' "
            f"{g.half_width_named:.1%}: a {g.injected - 1:.0%} change passes a {threshold:.0%} threshold only where "
            f"the interval is narrower than about {room:.1%}")


AGREES = 0.05  # the stated and the measured share within 5 points
DIFFERENCE = ("named_less_stated", "named_less_stated_low", "named_less_stated_high")  # paired, trial by trial


def _trial(table: pd.DataFrame, slowed: pd.Series, at: int, threshold: float, spike: float,
           declared: bool = False) -> tuple[bool, float]:
    """Whether the gate names row `at` of `table` swapped for `slowed`, and the chance stated for a `spike` slowdown
    (`declared`: its configuration's rows in compare.primary)."""
    spiked = table.copy()
    spiked.iloc[at] = slowed[spiked.columns]
    index = spiked.index[at]
    primary = (glob.escape("/".join(str(spiked[c].iat[at]) for c in KEY[:2])) + "/*",) if declared else ()
    named = bool(spiked.verdict.at[index] == "regressed"
                 and surviving(spiked, "ratio", threshold, primary, RATE).at[index])
    reach = one_row_reach(spiked, "ratio", threshold, spike, primary, RATE)
    return named, float(reach.power_at_spike.get(index, 0.0))


def spike_table(table: pd.DataFrame, threshold: float, seed: int = 0) -> pd.DataFrame | None:
    """Per table size (all A/A rows, SUBSET, all with its configuration declared primary): spiked tables, the
    slowdown as timed, the named share against the stated one trial by trial, within AGREES or not; None without an
    A/A and a SPIKE side."""
    base = table[table.injected.round(4) == 1].reset_index(drop=True)
    slowed = table[table.injected.round(4) == round(1 + SPIKE, 4)]
    if base.empty or slowed.empty:
        return None
    row = [c for c in KEY if c in table]  # a lockstep row, the same on every side
    twins = slowed.reset_index().set_index(row).reindex(pd.MultiIndex.from_frame(base[row])).reset_index()
    spike = float(np.exp(np.log(twins.ratio).mean() - np.log(base.ratio).mean())) - 1  # as timed, not as asked
    margin = clustered.margins(twins, 1 + spike, threshold)["regressed"]
    rng = np.random.default_rng(seed)
    found = []
    for size, draws, declared in ((len(base), len(base), False), (SUBSET, SUBSETS, False),
                                  (len(base), len(base), True)):
        if size > len(base):
            continue
        trials, spiked = [], []
        for draw in range(draws):
            rows = np.arange(size) if size == len(base) else rng.choice(len(base), size, replace=False)
            at = draw if size == len(base) else int(rng.integers(size))
            trials.append(_trial(base.iloc[rows], twins.iloc[rows[at]], at, threshold, spike, declared))
            spiked.append(rows[at])
        named, stated = (pd.Series(x) for x in zip(*trials, strict=True))
        configurations = twins.config_id.iloc[spiked].reset_index(drop=True)
        _, low, high = clustered.share_interval(margin.iloc[spiked].reset_index(drop=True), named, configurations)
        differs = clustered.mean_interval(named.astype(float) - stated, configurations)
        found.append({"rows": size, "declared": declared, "spiked_tables": draws, "slowdown": spike,
                      "named_share": named.mean(),
                      "named_low": low, "named_high": high, "stated_share": stated.mean(),
                      **dict(zip(DIFFERENCE, differs, strict=True)),
                      "agrees": clustered.against(*differs, (-AGREES, AGREES))})
    return pd.DataFrame(found)


def among(spike) -> str:
    """Where a spike-in row was slowed."""
    declared = " with the slowed row's configuration declared primary" if spike.declared else ""
    return f"among {spike.rows} rows{declared}"


def spike_lines(spikes: pd.DataFrame | None) -> list[str]:
    """The page's lines on the one regression the gate can find."""
    if spikes is None:
        return []
    said = "; ".join(f"{among(s)} ({s.spiked_tables} spiked tables, {s.slowdown:.2%} slower as timed) "
                     f"named in {s.named_share:.1%} [{s.named_low:.1%}, {s.named_high:.1%}], stated "
                     f"{s.stated_share:.1%}: named less stated {100 * s.named_less_stated:+.1f} points "
                     f"[{100 * s.named_less_stated_low:+.1f}, {100 * s.named_less_stated_high:+.1f}] (within "
                     f"{AGREES * 100:.0f} points: {s.agrees})"
                     for s in spikes.itertuples())
    return [f"- One row slowed {SPIKE:.0%} among unchanged ones (the A/A side with one row swapped for its twin "
            f"timed slowed, calibration/gate_power.py): {said}. The stated share is what every comparison's "
            "gate line says of its own rows (comparison/familywise.py: one_row_reach); each trial is set against "
            "its own stated chance, and both intervals are over the configurations the slowed rows came from, whose "
            "rows share their processes.", ""]

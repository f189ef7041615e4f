"""The calibration page's verdict lines: each decision's error rate with its interval first, and last the decisions
those rates do not reach."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
from scipy.stats import fisher_exact

from ...harness import clustered
from .allocation import PRECISE_ROWS
from .between_processes import SPLIT_TARGET, THIRD_TARGET, THIRDS, shown, thirds_words
from .gate_power import SUBSET, EdgeRuns, among, edge_words
from .null_histories import DECLARED
from .study_intervals import COVERAGE_TARGET, thirds_judged


@dataclass(frozen=True)
class Measured:
    """What a calibration run measured, as its producers return it; None where it did not run."""

    found: pd.DataFrame
    gates: pd.DataFrame | None = None
    costs: pd.DataFrame | None = None
    twins: pd.DataFrame | None = None
    simulated: pd.DataFrame | None = None
    null_series: tuple[int, int] | None = None
    null_rates: pd.DataFrame | None = None
    null_power: pd.DataFrame | None = None  # null_histories.step_power: steps planted in simulated and timed histories
    like: tuple[str, float, float, float] | None = None  # pyperf_beside.same_configuration
    medians: pd.DataFrame | None = None  # study_intervals.simulated_median_coverage
    spikes: pd.DataFrame | None = None  # gate_power.spike_table: one row slowed among unchanged ones
    replicated: dict[str, Any] | None = None  # between_processes.split_share: rows on halves of processes
    at_gate: tuple[int, int, float, float, float] | None = None  # allocation.at_gate: rows within the gate's width
    edge: EdgeRuns | None = None  # gate_power.edge_runs: good code at the threshold's edge
    thirds: pd.DataFrame | None = None  # between_processes.row_thirds: A/A rows' coverage by third of their spread


def _share(found: pd.DataFrame, factor: float, quantity: str) -> str:
    rows = found[(found.injected.round(4) == factor) & (found.quantity == quantity)]
    if rows.empty:
        return "not measured"
    r = rows.iloc[0]
    judged = f"; target {r.target}: {r.met}" if r.get("met") else ""  # clustered.against's word, as in the table
    return f"{r['count']} of {r.rows} ({r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}]{judged})"


def _halves(replicated: dict[str, Any]) -> str:
    share, low, high = (replicated[k] for k in ("share", "share_low", "share_high"))
    return (f"; every row estimated again on disjoint halves of its processes: the halves differed beyond their "
            f"interval in {share:.1%} [{low:.1%}, {high:.1%}] (target {SPLIT_TARGET[0]:.0%}-{SPLIT_TARGET[1]:.0%}: "
            f"{clustered.against(share, low, high, SPLIT_TARGET)})")


def _lockstep(found: pd.DataFrame, replicated: dict[str, Any] | None, thirds: pd.DataFrame | None) -> str:
    halves = (_halves(replicated) if replicated else "") + (f"; {thirds_words(thirds)}" if thirds is not None else "")
    return (f"- **Lockstep rows** (A/A): {_share(found, 1.0, 'flagged')} flagged, their intervals covering 1 in "
            f"{_share(found, 1.0, 'covers')}; a 10% slowdown called regressed in {_share(found, 1.1, 'regressed')}; "
            f"a 5% one, at the threshold's edge, in {_share(found, 1.05, 'regressed')}{halves}.")


def _gate(gates: pd.DataFrame, spikes: pd.DataFrame | None, at_gate: tuple[int, int, float, float, float] | None,
          edge: EdgeRuns | None) -> str:
    slowed, same = gates[gates.injected.round(2) >= 1.10], gates[gates.injected.round(4) == 1]
    parts = [f"a 10% slowdown in every row named in {g.named} of {g.rows} rows after its correction "
             f"({g.named_share:.1%} [{g.named_low:.1%}, {g.named_high:.1%}]; target at least 90%)"
             for g in slowed.itertuples()]
    if at_gate:
        within, rows, half, low, high = at_gate
        met = clustered.IN_WORDS[clustered.against(within / rows, low, high, (PRECISE_ROWS, 1.0))]
        parts += [f"rows within ±{half:.1%} (where one slowed 10% clears the threshold in 90% of runs before the "
                  f"correction): {within} of {rows} ({within / rows:.1%} [{low:.1%}, {high:.1%}] over the "
                  f"configurations; target at least {PRECISE_ROWS:.0%}: {met})"]
    parts += [f"one row slowed alone {among(s)} named in {s.named_share:.0%} [{s.named_low:.0%}, "
              f"{s.named_high:.0%}] against the {s.stated_share:.0%} its report states "
              f"({100 * s.named_less_stated:+.0f} points [{100 * s.named_less_stated_low:+.0f}, "
              f"{100 * s.named_less_stated_high:+.0f}] trial by trial: {s.agrees})"
              for s in (spikes.itertuples() if spikes is not None else [])]
    parts += [f"on its one A/A run it {'**failed**' if g.gate_fails else 'passed'} "
              f"({getattr(g, f'gate_fails_{SUBSET}'):.0%} of that run's subsets of {SUBSET} rows failed)"
              for g in same.itertuples()]
    parts += [edge_words(edge)] if edge else []
    return "- **The gate**: " + "; ".join(parts) + "."


def _studies(twins: pd.DataFrame, simulated: pd.DataFrame, medians: pd.DataFrame | None) -> str:
    def against(r) -> str:
        word = clustered.against(r.share, r.share_low, r.share_high, COVERAGE_TARGET)
        side = (" (over: wider than needed)" if r.share > COVERAGE_TARGET[1] else " (under)") if word == "no" else ""
        return f"{r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}] at {r.processes} processes: {word}{side}"

    held = "; ".join(f"{r.covered} of {r.rows}, {against(r)}" for r in twins.itertuples())

    def covered(table: pd.DataFrame) -> str:
        thirds = (f"; the noisiest third of each job's {', '.join(shown(x, THIRD_TARGET) for x in table[THIRDS[2]])}, "
                  f"the quietest {', '.join(shown(x, THIRD_TARGET) for x in table[THIRDS[0]])}: "
                  f"{thirds_judged(table)}" if THIRDS[2] in table else "")
        return "; ".join(against(r) for r in table.itertuples()) + thirds

    of_medians = "" if medians is None else f"; medians, {covered(medians)}"
    return (f"- **The studies' intervals** (published reference; target {COVERAGE_TARGET[0]:.0%}-"
            f"{COVERAGE_TARGET[1]:.0%} covered, the quietest and noisiest third "
            f"{THIRD_TARGET[0]:.0%}-{THIRD_TARGET[1]:.0%}): A/A twins "
            f"covered 1 in {held}; rows simulated from each job's spreads covered in "
            f"{covered(simulated)}{of_medians}.")


def _harnesses(costs: pd.DataFrame, like: tuple[str, float, float, float] | None) -> str:
    lockstep = costs[costs.harness.str.startswith("lockstep")].iloc[0]
    pyperf = costs[costs.harness.str.contains("compare_to")].iloc[0]
    p = fisher_exact([[pyperf.found, pyperf.pairs - pyperf.found], [lockstep.found, lockstep.pairs - lockstep.found]])
    told = "told apart" if p.pvalue < 0.05 else "not told apart"
    cost = (f"; to +-5% at the configuration pyperf timed, pyperf as run here cost {like[2] / like[1]:.1f}x the "
            f"lockstep's one pair there (no interval), {like[3] / like[1]:.1f}x at the least (pyperf's workers' "
            "preparation taken out)"
            if like else "")
    return (f"- **pyperf beside the lockstep** (A/A pairs): pyperf's own test called {pyperf.false_alarms} changed, "
            f"the lockstep {lockstep.false_alarms}: {told} (Fisher's exact p = {p.pvalue:.2f}){cost}.")


def _history(series: tuple[int, int] | None, rates: pd.DataFrame | None, power: pd.DataFrame | None) -> str:
    measured = f"the null history named a step in {series[0]} of {series[1]} series" if series else ""
    simulated, upper, without = "", "", ""
    if rates is not None:
        drawn, high, none = (rates[rates.between_releases == b] for b in ("as measured", "95% upper bound", "none"))
        simulated = f"of {drawn.histories.iloc[0]} simulated null histories, " + " and ".join(
            f"{r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}] named one at {r.repeats} job(s) a release"
            for r in drawn.itertuples())
        bound = (f"x{high.offsets.iloc[0]:.2f} their variance" if len(high) and high.offsets.iloc[0] > 1 else
                 "the offsets as measured: histories drawn with them estimate them as small in at most 5%, so the "
                 "estimate already bounds them and these rows repeat the measured ones")
        upper = (f"; at the offsets between releases' 95% upper bound ({bound}), "
                 + " and ".join(f"{r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}] at {r.repeats}"
                                for r in high.itertuples())) if len(high) else ""
        without = "; without an offset between releases, " + " and ".join(
            f"{r.share:.1%} at {r.repeats}" for r in none.itertuples()) if len(none) else ""
    found = "" if power is None else "".join(
        f"; a step planted in one series of {where} named at its place in " + " and ".join(
            f"{r.share:.0%} [{r.share_low:.0%}, {r.share_high:.0%}] at {r.step:.0%}" for r in rows.itertuples())
        for where, rows in (("a simulated history", power[power.history == "simulated"]),
                            ("the timed history", power[power.history == "timed"]),
                            ("a simulated history, that series declared primary (`history.primary`),",
                             power[power.history == DECLARED + "simulated"]))
        if len(rows))
    return ("- **Release history**: " + "; ".join(p for p in (measured, simulated) if p) + " (target at most 5%)"
            + upper + without + found + ".")


def brief(measured: Measured) -> list[str]:
    """The page's "In brief" section, a line per decision the run measured."""
    m = measured
    lines = [_lockstep(m.found, m.replicated, m.thirds)] if len(m.found) else []
    lines += [_gate(m.gates, m.spikes, m.at_gate, m.edge)] if m.gates is not None and len(m.gates) else []
    lines += [_studies(m.twins, m.simulated, m.medians)] if m.twins is not None and m.simulated is not None else []
    lines += [_harnesses(m.costs, m.like)] if m.costs is not None else []
    lines += [_history(m.null_series, m.null_rates, m.null_power)] if m.null_series or m.null_rates is not None else []
    return ["## In brief", "", *lines, ""] if lines else []


def reach_lines(rows: int, per_side: int, processes: str, configurations: int, factors: list[float],
                history_repeats: int | None, studies: bool = False) -> list[str]:
    """The page's closing section (`factors`: the injected ones, above 1; `history_repeats`: None where no null
    history ran)."""
    sizes = " and ".join(f"{f - 1:.0%}" for f in sorted(factors))
    null = (f"- the release history's false steps: one null history timed with {history_repeats} job(s) a release, "
            "and null histories simulated from its variance components at 1 and 2 jobs a release;"
            if history_repeats else "- the release history: no null history ran with this page;")
    return [
        "## What this page calibrates, and what it does not", "",
        "Calibrated here:", "",
        f"- the lockstep comparison's rows at {processes} fresh process{'es' * (processes != '1')} a side, each judged "
        f"on its own: false alarms and coverage on A/A rows, how often a {sizes} slowdown is found, and `regressed` "
        "at the threshold's edge;",
        "- the gate after its correction (Benjamini-Hochberg over a side's rows, and the sign-flip test of the rows "
        f"as a whole) on those rows ({per_side} a side, each side judged alone): its power and its false fails;",
        *(["- the studies' own intervals on the published reference: false alarms on the floors' A/A twins, and "
            "coverage of rows and of medians simulated from each job's spreads between processes;"]
          if studies else []),
        null, "",
        "Not calibrated here:", "",
        "- the comparison of two separate runs (`compare.baseline`: their medians and ratios): the same estimator "
        "over processes, unpaired (harness/moderated.two_sample; 95-96% of simulated rows covered at 2, 3 and 5 "
        "processes a run, with and without an offset a run's rows share, tests/test_moderated.py), but no A/A pair "
        "of separate runs is timed here;",
        *([] if studies else ["- the studies' own intervals: no published reference was read with this page;"]),
        "- a job's step shares, relative IQRs and compile-time ratios over its processes: the same estimator "
        "(report/tables/over_processes.py), checked on simulated rows only (tests/test_moderated.py);",
        "- the studies' intervals where a real change differs from process to process (a twin has none; the "
        "simulated rows draw each process's offset from a normal with the row's spread);",
        "- comparisons at fewer processes than these, and how often a real change of another size is called "
        "unchanged.", "",
        "How far the rates reach: the rows of one configuration share its fresh processes "
        f"({rows} rows over {configurations} configurations), so each share's interval counts its effective rows: "
        "its rows over the larger design effect of its rows' margins (how far each interval lies past the event, "
        "clustered by configuration) and of its own hits, with t on the configurations' degrees of freedom "
        "(across_runs/calibration/clustered.py). An injected row is an "
        "A/A row times a known factor (harness/injected.py), which tests the intervals' width, not a change that "
        "differs by variant or mode.", "",
        "What the run timed is kept whole beside this page (results/calibration/, across_runs/calibration/timed.py; "
        "docs/results/calibration/ where published): `jaxpitfalls calibration rejudge` renders "
        "the page again from it by a later checkout's rules, without timing again.", "",
    ]

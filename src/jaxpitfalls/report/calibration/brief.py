"""The calibration page's opening lines: each decision's measured error rate as one number with its interval,
before the tables and the reasons (docs/calibration.md). A reader who asks "can I trust a verdict?" gets the
answer first; the sections below say how each was measured."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .gate_power import SUBSET


@dataclass(frozen=True)
class Measured:
    """What a calibration run measured, each None where it did not run: the lockstep rows' rates
    (calibration.summary), the gate per side (gate_power.gate_table), the harnesses' costs
    (harness_cost.cost_summary), the studies' twins, simulated rows and medians (study_intervals.coverages), the null
    history's series with a step and its series (named, series), and the simulated null histories
    (null_histories.rates)."""

    found: pd.DataFrame
    gates: pd.DataFrame | None = None
    costs: pd.DataFrame | None = None
    twins: pd.DataFrame | None = None
    simulated: pd.DataFrame | None = None
    null_series: tuple[int, int] | None = None
    null_rates: pd.DataFrame | None = None
    like: tuple[str, float, float] | None = None  # harness_cost.same_configuration
    medians: pd.DataFrame | None = None  # study_intervals.simulated_median_coverage


def _share(found: pd.DataFrame, factor: float, quantity: str) -> str:
    rows = found[(found.injected.round(4) == factor) & (found.quantity == quantity)]
    if rows.empty:
        return "not measured"
    r = rows.iloc[0]
    return f"{r['count']} of {r.rows} ({r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}])"


def _lockstep(found: pd.DataFrame) -> str:
    return (f"- **Lockstep rows** (A/A): {_share(found, 1.0, 'flagged')} flagged, their intervals covering 1 in "
            f"{_share(found, 1.0, 'covers')}; a 10% slowdown called regressed in {_share(found, 1.1, 'regressed')}; "
            f"a 5% one, at the threshold's edge, in {_share(found, 1.05, 'regressed')} (target at most 2.5%).")


def _gate(gates: pd.DataFrame) -> str:
    slowed, same = gates[gates.injected.round(2) >= 1.10], gates[gates.injected.round(4) == 1]
    parts = [f"a 10% slowdown named in {g.named} of {g.rows} rows after its correction ({g.named_share:.1%} "
             f"[{g.named_low:.1%}, {g.named_high:.1%}]; target at least 90%)"
             for g in slowed.itertuples()]
    parts += [f"on A/A rows it {'**failed**' if g.gate_fails else 'passed'} ({getattr(g, f'gate_fails_{SUBSET}'):.0%} "
              f"of subsets of {SUBSET} rows failed)" for g in same.itertuples()]
    return "- **The gate**: " + "; ".join(parts) + "."


def _studies(twins: pd.DataFrame, simulated: pd.DataFrame, medians: pd.DataFrame | None) -> str:
    held = ", ".join(f"{r.covered} of {r.rows} at {r.processes} processes" for r in twins.itertuples())

    def covered(table: pd.DataFrame) -> str:
        return (", ".join(f"{r.share:.1%}" for r in table.itertuples()) + " at "
                + ", ".join(str(r.processes) for r in table.itertuples()) + " processes")

    of_medians = "" if medians is None else f"; medians simulated from each job's measured spreads, {covered(medians)}"
    return (f"- **The studies' intervals** (published reference): A/A twins covered 1 in {held}; rows simulated "
            f"from each job's measured spread covered in {covered(simulated)}{of_medians} (target 93-97%).")


def _harnesses(costs: pd.DataFrame, like: tuple[str, float, float] | None) -> str:
    lockstep = costs[costs.harness.str.startswith("lockstep")].iloc[0]
    pyperf = costs[costs.harness.str.contains("compare_to")].iloc[0]
    interval = (f"[{pyperf.against_low:.1f}, {pyperf.against_high:.1f}]" if np.isfinite(pyperf.against_low)
                else "(one pair: no interval)")
    same = f", {like[2] / like[1]:.1f}x at the configuration pyperf timed (one lockstep pair)" if like else ""
    return (f"- **pyperf beside the lockstep** (A/A pairs): pyperf's own test called {pyperf.false_alarms} changed, "
            f"the lockstep {lockstep.false_alarms}; to +-5%, pyperf needs {pyperf.against_lockstep:.1f}x the "
            f"lockstep's machine time over all its configurations {interval}{same}.")


def _history(series: tuple[int, int] | None, rates: pd.DataFrame | None) -> str:
    measured = f"the null history named a step in {series[0]} of {series[1]} series" if series else ""
    simulated = "; ".join(f"{r.share:.1%} [{r.share_low:.1%}, {r.share_high:.1%}] of {r.histories} simulated null "
                          f"histories named one at {r.repeats} job(s) a release" for r in rates.itertuples()
                          ) if rates is not None else ""
    return "- **Release history**: " + "; ".join(p for p in (measured, simulated) if p) + " (target at most 5%)."


def brief(measured: Measured) -> list[str]:
    """The page's "In brief" section, a line per decision the run measured."""
    m = measured
    lines = [_lockstep(m.found)] if len(m.found) else []
    lines += [_gate(m.gates)] if m.gates is not None and len(m.gates) else []
    lines += [_studies(m.twins, m.simulated, m.medians)] if m.twins is not None and m.simulated is not None else []
    lines += [_harnesses(m.costs, m.like)] if m.costs is not None else []
    lines += [_history(m.null_series, m.null_rates)] if m.null_series or m.null_rates is not None else []
    return ["## In brief", "", *lines, ""] if lines else []

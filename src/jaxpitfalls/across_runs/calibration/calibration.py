"""The lockstep comparison's statistics checked against known truths (`make calibrate`, docs/results/calibration.md).

A/A sides must find no change and cover 1; sides slowed by a known factor must find and cover it. Each rate has its
Wilson 95% interval and target: a 95% kept is told from one only claimed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import levene

from ...harness import clustered
from ...harness.injected import KNOB, SLOWDOWN_ENV
from ...harness.stats import wilson
from ...report.tables.environments import code_version
from ...report.tables.run_summary import machine_time_lines
from ..comparison.compare_report import MOVED
from ..comparison.lockstep import machine_parts, more_processes
from ..history.history import SERIES, jobs_line
from ..history.rejudge import rejudged
from ..settings import PYPERF_OPTIONS, Compare, History
from . import allocation, between_processes, null_histories, study_intervals
from .between_processes import row_thirds, thirds_line
from .brief import Measured, brief, reach_lines
from .gate_power import edge_runs, gate_lines, gate_table, spike_lines, spike_table
from .pyperf_beside import beside, cost_summary, pyperf_section, same_configuration
from .timed import Timed

# The targets: per kind of row, (quantity, lowest, highest) as a share of its rows.
TARGETS = {
    "A/A": (("flagged", 0.0, 0.05), ("covers", 0.92, 0.98)),
    "A/B": (("covers", 0.92, 0.98),),
}
# An injected change found often enough; at 1.05, the threshold's edge, `regressed` (a minimum-effect test: the
# whole interval beyond 1.05) is a false call, at most its one-sided 2.5%.
FOUND = {1.05: (("excludes_1", 0.80, 1.0), ("regressed", 0.0, 0.025)), 1.10: (("regressed", 0.90, 1.0),)}
COLUMNS = ["injected", "rows", "effective_rows", "quantity", "count", "share", "share_low", "share_high", "target",
           "met"]


def _targets(factor: float) -> list[tuple[str, float, float]]:
    kind = "A/A" if math.isclose(factor, 1.0) else "A/B"
    return [*TARGETS[kind], *FOUND.get(round(factor, 2), ())]


def _seen(table: pd.DataFrame, threshold: float) -> Iterator[tuple[float, str, pd.Series, pd.Series, pd.DataFrame]]:
    """Per injected factor (1: A/A) and quantity, which rows show it and by how much."""
    for factor, part in table.groupby(table.injected.round(4)):
        margins = clustered.margins(part, float(factor), threshold)
        yield from ((float(factor), quantity, hits, margins[quantity], part) for quantity, hits in {
            "flagged": part.verdict.isin(MOVED),
            "regressed": part.verdict == "regressed",
            "excludes_1": (part.ratio_ci_low > 1) | (part.ratio_ci_high < 1),
            "covers": (part.ratio_ci_low <= factor) & (factor <= part.ratio_ci_high)}.items())


def summary(table: pd.DataFrame, threshold: float = 0.05) -> pd.DataFrame:
    """Per factor and quantity, the share of rows with its 95% interval over the effective rows, and its target."""
    rows = []
    for factor, quantity, hits, margins, part in _seen(table, threshold):
        k, n = int(hits.sum()), len(hits)
        effective, low, high = clustered.share_interval(margins, hits, part.config_id)
        target = {q: (lo, hi) for q, lo, hi in _targets(factor)}.get(quantity)
        rows.append({"injected": factor, "rows": n, "effective_rows": effective, "quantity": quantity, "count": k,
                     "share": k / n, "share_low": low, "share_high": high,
                     "target": f"{100 * target[0]:g}%-{100 * target[1]:g}%" if target else "",
                     "met": clustered.against(k / n, low, high, target) if target else ""})
    return pd.DataFrame(rows, columns=COLUMNS)


KNOB_TOLERANCE = 0.01  # how far the injected rows' median ratio may sit from the factor asked for


def knob_lines(table: pd.DataFrame, proportional: bool = True) -> list[str]:
    """Did the knob inject what it says? Off by more than KNOB_TOLERANCE, or not `proportional`, coverage tests the
    knob, and the report says so."""
    lines = [] if proportional else [
        "- the injected sides' workers added a fixed amount each, set from their own reference samples (the "
        "knob before it was proportional to each sample): each row's truth is off the nominal factor by its "
        "worker's reference, so only the A/A rows test the intervals here; power is that of the changes made"]
    same = np.log(table.ratio[table.injected.round(4) == 1])
    for factor, part in table[table.injected.round(4) != 1].groupby(table.injected.round(4)):
        middle, (q1, q3) = part.ratio.median(), part.ratio.quantile([0.25, 0.75])
        off = abs(middle / factor - 1) > KNOB_TOLERANCE
        lines.append(f"- injected {factor:g}: its {len(part)} rows' ratios median {middle:.3f} (quartiles {q1:.3f}-"
                     f"{q3:.3f}): " + (f"**off the mark** by {middle / factor - 1:+.1%}, so covering {factor:g} "
                                       "tests the knob, not the intervals; power is that of the change it did make"
                                       if off else "on the mark") + _scatter(np.log(part.ratio / factor), same))
    return ["The knob's own check:", "", *lines, ""] if lines else []


def _scatter(injected: pd.Series, same: pd.Series) -> str:
    """Brown-Forsythe on the injected rows' log-ratios against the A/A rows': more scatter, factors differ by row."""
    if len(same) < 3 or len(injected) < 3 or not (injected.std() > 0 or same.std() > 0):
        return ""  # too few rows, or no spread on either side: nothing to compare
    p = float(levene(injected, same, center="median").pvalue)
    spread = f"spread across rows {injected.std():.1%} in log against the A/A rows' {same.std():.1%}"
    if p < 0.05 and injected.std() > same.std():
        return (f"; but its rows **scatter beyond the A/A rows'** ({spread}, Brown-Forsythe p = {p:.2g}): the "
                "factor it adds differs by row, so covering the nominal factor tests the knob as well as the "
                "intervals (the A/A rows test the intervals alone)")
    return f"; {spread} (Brown-Forsythe p = {p:.2g}): the same factor in every row, as far as this tells"


def _sides(ran: dict[str, Any]) -> str:
    return ", ".join(f"{name} ({side.get('env', {}).get(SLOWDOWN_ENV, '0')} slower)" if side.get("env") else name
                     for name, side in ran["sides"].items())


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return f"{low}" if low == high else f"{low}-{high}"


def timed_as(table: pd.DataFrame, ran: dict[str, Any]) -> tuple[str, str]:
    """A side's processes and rounds as the jobs ran them ("5", or "3-28" where allocated), else the config's."""
    if not len(table):
        return str(ran["processes"]), str(ran["rounds"])
    return _span(table.processes), _span(table.rounds)


def markdown(table: pd.DataFrame, found: pd.DataFrame, machine_s: float, ran: dict[str, Any],
             pyperf: pd.DataFrame | None = None, commits: list[str] = (), proportional: bool = True,
             history_repeats: int | None = None, sections: list[str] = (), measured: Measured | None = None) -> str:
    """docs/results/calibration.md: brief, rates against targets, machine time, gate, pyperf, `sections`, reach."""
    measured = measured or _measured(table, found, ran["threshold"], pyperf)
    processes, rounds = timed_as(table, ran)
    shown = found.assign(share=[f"{s:.1%} [{lo:.1%}, {hi:.1%}]" for s, lo, hi in
                                zip(found.share, found.share_low, found.share_high, strict=True)])
    lines = [
        "# Calibration: does every decision keep its error rate?", "",
        *brief(measured),
        "## The lockstep rows", "",
        f"`make calibrate` (presets/calibrate.yaml): {ran['study']} timed in lockstep on sides "
        f"{_sides(ran)}, {processes} processes x {rounds} rounds a side"
        f"{' (each configuration its own: compare.allocation)' if '-' in processes + rounds else ''}"
        f"{' (' + ran['more'] + ')' if ran.get('more') else ''}: this environment "
        "against itself (A/A, injected 1: any change found is a false alarm) and against sides slowed by a known "
        "fraction of each sample (busy work, harness/injected.py), over "
        f"{table.groupby(['config_id', 'variant', 'mode']).ngroups} rows of configurations, variants and modes. "
        "A row's interval: Student's t over its fresh processes' median log-ratios, their spread pooled across the "
        "rows of its job (harness/moderated.py). Each share with its Wilson 95% interval over its effective rows "
        "(the rows of one configuration share its processes: across_runs/calibration/clustered.py); `met`: yes where "
        "the share and its whole interval lie within the target, by its point where the share does but its interval "
        "reaches beyond (not confirmed), no where the whole interval lies outside, cannot tell otherwise.", "",
        shown.drop(columns=["share_low", "share_high"]).to_markdown(index=False, floatfmt=".3f"), "",
        *knob_lines(table, proportional),
        *([between_processes.split_line(measured.replicated), ""] if measured.replicated is not None else []),
        *([thirds_line(measured.thirds), ""] if measured.thirds is not None else []),
        f"Machine time of the calibration's lockstep jobs: {machine_s:.0f} s ({machine_s / 60:.1f} min)"
        + (f"; timed with the workflow at {', '.join(commits)}." if commits else "."), "",
        *(gate_lines(measured.gates, ran["threshold"], measured.edge) if measured.gates is not None else []),
        *spike_lines(measured.spikes),
    ]
    if pyperf is not None:
        lines += pyperf_section(pyperf, ran["pyperf"], measured.costs, measured.like)
    factors = [f for f in table.injected.round(4).unique() if f > 1] if len(table) else []
    per_side = int(table.groupby("side").size().max()) if len(table) else 0
    return "\n".join([*lines, *sections, *reach_lines(
        len(table), per_side, processes, table.config_id.nunique() if len(table) else 0, factors,
        history_repeats, measured.twins is not None)])


def null_history(steps: pd.DataFrame, machine_s: float, history: History, ran: pd.Series | None = None) -> list[str]:
    """The null history's section: every step it names is a false alarm (its package is never called); steps resting
    on one job are listed apart; `ran`: its jobs' start times, said (it may be timed apart from the lockstep)."""
    named, series, alone = null_series(steps)
    low, high = wilson(named, series)
    ran = sorted(str(t)[:16].replace("T", " ") for t in (ran if ran is not None else []) if str(t) not in ("", "nan"))
    return [
        "## A null release history", "",
        f"The base of {history.study} timed in an environment per release of {history.package} "
        f"({', '.join(history.versions)}){_fixed(history)}: the config's history (presets/calibrate.yaml: a "
        "package the timed steps never call), so any step it names is a false alarm. "
        f"{named} of {series} series with a step named ({named / max(series, 1):.1%} [{low:.1%}, {high:.1%}]; "
        f"target: none in any series, at most 5% across the calibration's null series); {alone} step(s) "
        "resting on one release's job listed, not named. "
        f"{jobs_line(steps, history.repeats)} Machine time (environments built and timed): "
        f"{machine_s:.0f} s ({machine_s / 60:.1f} min){f'; its jobs ran {ran[0]} to {ran[-1]} UTC' if ran else ''}.",
        "",
    ]


def null_series(steps: pd.DataFrame) -> tuple[int, int, int]:
    """Counts: series with a step named, all series, steps resting on one release's job."""
    stepped = steps[steps.step > 0]
    alone = stepped.one_release.fillna("").astype(str) != ""
    return stepped[~alone].groupby(SERIES).ngroups, steps.groupby(SERIES).ngroups, int(alone.sum())


def _fixed(history: History) -> str:
    pins = ", ".join(f"{k} {v}" for k, v in history.shared_pins.items())
    return f", with {pins} fixed" if pins else ""


def _ran(jobs: list[dict[str, Any]], compare: Compare, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """The set-up the lockstep jobs recorded (the config may have changed since), with pyperf's as its pairs did."""
    recorded = jobs[0]
    # results made before a job recorded its set-up: the config's, which those jobs ran with
    set_up = recorded.get("lockstep", {"processes": compare.processes, "rounds": compare.rounds})
    return {**set_up, "study": recorded["study"], "sides": recorded["sides"], "threshold": compare.threshold,
            "pyperf": _pyperf_ran(pairs, compare), "more": more_processes(jobs)}


def _pyperf_ran(pairs: list[dict[str, Any]], compare: Compare) -> dict[str, Any]:
    """pyperf's callable and options as its pairs recorded them, and their machine time where they were timed
    apart from this run (`apart_s`; None where this run timed them)."""
    if not pairs:
        return {"callable": compare.pyperf.callable, "options": list(compare.pyperf.options), "apart_s": None}
    first = pairs[0]
    options = first["options"]
    own = options[len(PYPERF_OPTIONS):] if tuple(options[:len(PYPERF_OPTIONS)]) == PYPERF_OPTIONS else options
    return {"callable": f"{first['mode']}/{first['variant']}", "options": own,
            "apart_s": _pyperf_s(pairs) if compare.pyperf.published else None}


def write(timed: Timed, out: str, reference: str = "") -> None:
    """reports/calibration.md from what the calibration timed and the `reference` snapshot's studies."""
    from ... import results

    table, jobs, history = timed.table, timed.jobs, History.of(timed.history)
    machine_s = sum(job["job_seconds"] for job in jobs)
    pairs = beside(table, jobs, timed.pyperf) if timed.pyperf else None
    ran = _ran(jobs, Compare.of(timed.compare), timed.pyperf)
    found = summary(table, ran["threshold"])
    studies = study_intervals.coverages([Path(reference)]) if reference else None
    nulls, null = _null_history(timed, history)
    measured = replace(_measured(table, found, ran["threshold"], pairs), twins=studies[1] if studies else None,
                       simulated=studies[2] if studies else None, medians=studies[3] if studies else None, **nulls)
    label = f"docs/results/reference/{Path(reference).name}"  # where the workflow reads the published snapshot
    pyperf_s = _pyperf_s(timed.pyperf) if ran["pyperf"]["apart_s"] is None else 0.0  # timed apart: not this run's
    sections = [*allocation.allocation_section(allocation.allocation_table(jobs, table, ran["threshold"]),
                                                      ran["threshold"]),
                *(study_intervals.section([label], *studies) if studies else []), *null,
                *machine_time_lines({**machine_parts(jobs), "pyperf's pairs": pyperf_s,
                                     "the null history (its environments built)": timed.history_machine_s},
                                    timed.run_target_s)]
    results.write_text(out, markdown(table, found, machine_s, ran, pairs, _commits(jobs), _proportional(jobs),
                                     history.repeats if timed.history_steps is not None else None, sections,
                                     measured))


def _pyperf_s(pairs: list[dict[str, Any]]) -> float:
    return sum(run["wall_s"] for pair in pairs for run in pair["runs"].values())


def _measured(table: pd.DataFrame, found: pd.DataFrame, threshold: float, pairs: pd.DataFrame | None) -> Measured:
    """What the rows and pyperf pairs measured, computed once for the brief and the sections."""
    return Measured(found, gate_table(table, threshold) if len(table) else None,
                    cost_summary(pairs) if pairs is not None else None,
                    like=same_configuration(pairs) if pairs is not None else None,
                    spikes=spike_table(table, threshold) if len(table) else None,
                    replicated=between_processes.split_measured(table),
                    at_gate=allocation.at_gate(table, threshold) if len(table) else None,
                    edge=edge_runs(table, threshold) if len(table) else None,
                    thirds=row_thirds(table) if len(table) else None)


def _null_history(timed: Timed, history: History) -> tuple[dict[str, Any], list[str]]:
    """The null history's counts, simulations (only where a release ran twice) and section; nothing where none ran."""
    steps, ratios = timed.history_steps, timed.history_ratios
    if steps is None:
        return {}, []
    if ratios is not None:  # by this checkout's fit: a published calibration rejudged restates its steps too
        steps = rejudged(ratios, history.package)
    lines = null_history(steps, timed.history_machine_s, history, None if ratios is None else ratios.get("ran_at"))
    if history.repeats < 2 or ratios is None:
        return {"null_series": null_series(steps)[:2]}, [
            *lines, "No null history simulated: one job a release cannot give the spread between jobs the "
            "simulation draws from.", ""]
    if timed.null_outcomes is None:
        raise FileNotFoundError("the kept calibration holds no drawn null histories: `jaxpitfalls calibration "
                                "rejudge --write` draws them")
    drawn = timed.null_outcomes
    rates, power = null_histories.rates(drawn), null_histories.step_power(drawn, len(ratios[SERIES].drop_duplicates()))
    return ({"null_series": null_series(steps)[:2], "null_rates": rates, "null_power": power},
            [*lines, *null_histories.section(ratios, drawn, rates, power)])


def _workers(jobs: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for job in jobs:
        for described in job["timed"]["descriptions"].values():
            yield from described


def _proportional(jobs: list[dict[str, Any]]) -> bool:
    return all(worker.get("injected_kind") == KNOB for worker in _workers(jobs) if worker.get("injected_slowdown"))


def _commits(jobs: list[dict[str, Any]]) -> list[str]:
    return sorted({code_version(worker.get("environment", {})) for worker in _workers(jobs)})

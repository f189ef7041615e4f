"""A benchmark file's expectations judged like claims: the paired ratio at the base, on its 95% interval."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..contract.decisions import Decision, decide, interval, verdict
from ..contract.judging import NOT_MEASURED_TEXT, Judges, Run
from ..contract.verdicts import NOT_MEASURED, Estimate, Judged
from ..formatting import bytes_unit, short
from .expectations import Expectation
from .reader import read
from .spec import spec


def ratio(run: Run, a: str, b: str, mode: str, config_id: str,
          of: str = "") -> tuple[float, float, float, float | None]:
    """t(a) / t(b) (`of="compile_"`: compile times) with its 95% interval at `config_id`, from whichever row
    times the pair, and its df (or None)."""
    forward = ((run.comp.variant == a) & (run.comp.baseline == b)).any()
    row = run.pair(a, b, config_id, mode=mode) if forward else run.pair(b, a, config_id, mode=mode)
    value, low, high = (float(row.get(f"{of}ratio{c}", math.nan)) for c in ("", "_ci_low", "_ci_high"))
    if not 0 < value < math.inf:  # a side that took no time XLA counted: no ratio, whichever way it is stored
        return math.nan, math.nan, math.nan, None
    df = row.get(f"{of}ratio_df")
    df = float(df) if df is not None and np.isfinite(df) else None
    return (value, low, high, df) if forward else (1 / value, 1 / high, 1 / low if low else math.inf, df)


PLANNED = ("total_bytes", "temporary_bytes", "programs", "devices")


def planned(run: Run, variants: tuple[str, str], config_id: str) -> pd.DataFrame:
    """XLA's plan (steps.csv's `program_*`) of two variants at `config_id`, a row each; NaN where none was kept."""
    steps = run.steps[(run.steps.config_id == config_id) & (run.steps["mode"] == "blocked")]
    kept = [f"program_{c}" for c in PLANNED if f"program_{c}" in steps]
    found = steps.groupby("variant")[kept].first().rename(columns=lambda c: c.removeprefix("program_"))
    return found.reindex(index=list(variants), columns=list(PLANNED)).astype(float)


def _holds(e: Expectation, r: float) -> bool:
    """An exact ratio against the sentence's edges; a sized edge holds at itself (its float may differ in the last
    bit from the totals')."""
    _, low, high = e.spoken
    sized = low not in (None, 1.0) or high not in (None, 1.0)

    def at(edge: float) -> bool:
        return sized and math.isclose(r, edge, rel_tol=1e-12)

    return (low is None or r > low or at(low)) and (high is None or r < high or at(high))


def _elsewhere(e: Expectation, run: Run, judged: str) -> str:
    """How the rule fares at the other configurations, where both calls run one program (exact there too)."""
    steps = run.steps[(run.steps["mode"] == "blocked") & (run.steps.config_id != judged)
                      & run.steps.variant.isin(e.pair)]
    if f"program_{e.part}_bytes" not in steps:
        return ""
    one = steps[steps.program_programs == 1].pivot_table(index="config_id", columns="variant",
                                                         values=f"program_{e.part}_bytes", aggfunc="first")
    ratios = {config: row[e.a] / row[e.b] for config, row in one.iterrows() if set(e.pair) <= set(row.dropna().index)}
    return _at_others([(config, f"{r:.3f}x", _holds(e, r)) for config, r in ratios.items()])


def _at_others(found: list[tuple[str, str, bool | None]]) -> str:
    """`; at the other configurations it holds at 1, fails at 0, undecided at 1 of 2 (c1 0.9x, c2 1.1x)`: each
    configuration's number and its rule's outcome (None: undecided, said apart from "fails")."""
    if not found:
        return ""
    said = ", ".join(f"{config} {number}" for config, number, _ in found[:4]) + (", ..." if len(found) > 4 else "")
    held, failed = (sum(outcome is way for _, _, outcome in found) for way in (True, False))
    counts = f"{held} of" if held + failed == len(found) else (
        f"{held}, fails at {failed}, undecided at {len(found) - held - failed} of")
    return f"; at the other configurations it holds at {counts} {len(found)} ({said})"


def judge_memory(e: Expectation, run: Run) -> Judged:
    """A memory expectation on the planned totals per device: exact, so it holds or not. Not measured where a call
    runs several programs: the arrays between them are in no plan."""
    what, low, high = e.spoken
    config_id = configuration(e, run)
    if config_id is None:
        return Judged(measured=f"{NOT_MEASURED_TEXT} no configuration {e.where} in this run", verdict=NOT_MEASURED)
    plans = planned(run, e.pair, config_id)
    (a, b), programs, devices = plans[f"{e.part}_bytes"], plans.programs, plans.devices.tolist()
    missing = [v for v, total, planned_total in zip(e.pair, (a, b), plans.total_bytes, strict=True)
               if not np.isfinite(total) or not planned_total > 0]
    several = [f"{v} runs {n:.0f}" for v, n in zip(e.pair, programs, strict=True) if n > 1]
    if missing:
        return Judged(measured=f"{NOT_MEASURED_TEXT} no memory plan for {missing} (a first call compiling no "
                               "program: NumPy, or one compiled ahead of time; or a JAX keeping none)",
                      verdict=NOT_MEASURED)
    if several:
        return Judged(measured=f"{NOT_MEASURED_TEXT} {' and '.join(several)} programs a call, holding arrays "
                               "between them that no plan counts (jitting the whole call plans it as one)",
                      verdict=NOT_MEASURED)
    if b == 0:  # a program of no temporaries: no ratio to it
        return Judged(measured=f"{NOT_MEASURED_TEXT} {e.b} plans no temporaries, so no ratio to them",
                      verdict=NOT_MEASURED)
    r = a / b
    unit, size = bytes_unit(max(a, b))
    spans = "" if set(devices) <= {1.0} or not np.isfinite(devices).all() else (
        f"; {e.a} spans {devices[0]:.0f} device(s), {e.b} {devices[1]:.0f}: {short(a * devices[0] / size)} / "
        f"{short(b * devices[1] / size)} {unit} over them all")
    return Judged(measured=f"{what} = {r:.3f}x {e.judged_at(config_id)} ({short(a / size)} / {short(b / size)} "
                           f"{unit} per device, XLA's plan{spans}){_elsewhere(e, run, config_id)}",
                  verdict=verdict(_holds(e, r)),
                  headline=Estimate(r, r, r, "x", what), edges=tuple(x for x in (low, high) if x))


def configuration(e: Expectation, run: Run) -> str | None:
    """The configuration an expectation is judged at: the base, or the one whose `at` axis has its value (the
    nearest the base on the other axes); None where the run has none."""
    if e.at is None:
        return run.base_id
    axis = e.at[0]
    if axis not in run.comp:
        return None
    configs = run.comp.drop_duplicates("config_id").set_index("config_id")
    found = configs[configs[axis].map(e.at_value)]
    axes = str(configs.loc[run.base_id, "axes"]) if "axes" in configs and run.base_id in configs.index else ""
    others = [c for c in axes.split(",") if c in configs and c != axis]
    return min(found.index, key=lambda c: sum(str(found.loc[c, o]) != str(configs.loc[run.base_id, o])
                                              for o in others), default=None)


def _decided(e: Expectation, run: Run, config_id: str) -> tuple[tuple[float, float, float], Decision] | None:
    """The sentence's ratio at `config_id` as it speaks (t(b) / t(a) where it says faster), and its rule's
    decision; None where there is no ratio."""
    *shown, df = ratio(run, *(e.pair[::-1] if e.faster else e.pair), e.mode, config_id,
                       of="compile_" if e.compiling else "")
    if not np.isfinite(shown[0]):
        return None
    _, low, high = e.spoken
    checks = run.tables["checks"]
    processes = int(checks.loc[checks.config_id == config_id, "processes"].max())
    return tuple(shown), decide(shown[1], shown[2], *(x for x in (low, high) if x), log=True, df=df,
                                processes=processes, holds="inside" if low and high else "above" if low else "below")


def _time_elsewhere(e: Expectation, run: Run, judged: str) -> str:
    """How the rule fares at the other configurations that time the pair, as a memory sentence says it."""
    comp = run.comp
    timed = comp[comp.variant.isin(e.pair) & comp.baseline.isin(e.pair) & (comp["mode"] == e.mode)]
    found = [(c, d) for c in dict.fromkeys(timed.config_id) if c != judged and (d := _decided(e, run, c))]
    return _at_others([(c, interval(*shown, "x"), decision.outcome) for c, (shown, decision) in found])


def judge(expectation: Expectation, run: Run) -> Judged:
    """One expectation on this run, shown as its sentence speaks (a speed-up where it says faster)."""
    e = expectation
    if e.memory:
        return judge_memory(e, run)
    config_id = configuration(e, run)
    if config_id is None:
        return Judged(measured=f"{NOT_MEASURED_TEXT} no configuration {e.where} in this run", verdict=NOT_MEASURED)
    where, found = e.judged_at(config_id), _decided(e, run, config_id)
    if found is None:
        return Judged(measured=f"{NOT_MEASURED_TEXT} no {'compile-time ' if e.compiling else ''}ratio {where}",
                      verdict=NOT_MEASURED)
    (shown, decision), (what, low, high) = found, e.spoken
    return decision.judged(measured=f"{what} = {interval(*shown, 'x')} {where} ({e.mode})"
                                    f"{_time_elsewhere(e, run, config_id)}",
                           headline=Estimate(*shown, "x", what), edges=tuple(x for x in (low, high) if x))


@cache
def judges(name: str, path: Path) -> Judges:
    """Each expectation's judge, registered under its key."""
    found = Judges(spec(name, path))
    for expectation in read(path).expectations:
        found(expectation.key)(lambda run, e=expectation: judge(e, run))
    return found

"""A benchmark file's expectations judged like claims: the paired ratio at the base, on its 95% interval."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from ..contract.decisions import decide, interval, ratio_of, verdict
from ..contract.judging import Judges, Run
from ..contract.verdicts import INCONCLUSIVE, Estimate, Judged
from ..formatting import bytes_unit, short
from .expectations import Expectation
from .reader import read
from .spec import spec


def ratio(run: Run, a: str, b: str, mode: str) -> tuple[float, float, float, float | None]:
    """t(a) / t(b) with its 95% interval at the base, from whichever row times the pair, and its df (or None)."""
    forward = ((run.comp.variant == a) & (run.comp.baseline == b)).any()
    row = run.pair(a, b, mode=mode) if forward else run.pair(b, a, mode=mode)
    value, low, high = ratio_of(row)
    df = row.get("ratio_df")
    df = float(df) if df is not None and np.isfinite(df) else None
    return (value, low, high, df) if forward else (1 / value, 1 / high, 1 / low, df)


def planned_peaks(run: Run, a: str, b: str) -> tuple[float, float]:
    """XLA's planned peaks of a's and b's largest programs at the base (NaN where none was kept)."""
    steps = run.steps[(run.steps.config_id == run.base_id) & (run.steps["mode"] == "blocked")]
    peaks = steps.groupby("variant")["program_peak_bytes"].first() if "program_peak_bytes" in steps else {}
    return tuple(float(peaks.get(v, np.nan)) for v in (a, b))


def judge_memory(e: Expectation, run: Run) -> Judged:
    """A memory expectation on the planned peaks: exact, so it holds or not; a sized edge holds at the edge too."""
    what, low, high = e.spoken
    a, b = planned_peaks(run, e.a, e.b)
    if not (np.isfinite(a) and np.isfinite(b) and b > 0):
        missing = [v for v, peak in ((e.a, a), (e.b, b)) if not np.isfinite(peak)]
        return Judged(measured=f"not measured: no memory plan for {missing or [e.b]}", verdict=INCONCLUSIVE,
                      absent_here="a first call that compiled no program (NumPy), or a JAX that keeps no plan")
    r, sized = a / b, low not in (None, 1.0) or high not in (None, 1.0)
    holds = (low is None or r > low or (sized and r == low)) and (high is None or r < high or (sized and r == high))
    unit, size = bytes_unit(max(a, b))
    return Judged(measured=f"{what} = {r:.3f}x at the base configuration ({short(a / size)} / {short(b / size)} "
                           f"{unit}, XLA's plan)", verdict=verdict(holds),
                  headline=Estimate(r, r, r, "x", what), edges=tuple(x for x in (low, high) if x))


def judge(expectation: Expectation, run: Run) -> Judged:
    """One expectation on this run, shown as its sentence speaks (a speed-up where it says faster)."""
    e = expectation
    if e.memory:
        return judge_memory(e, run)
    *r, df = ratio(run, e.a, e.b, e.mode)
    shown = (1 / r[0], 1 / r[2], 1 / r[1]) if e.faster else tuple(r)
    what, low, high = e.spoken
    holds = "inside" if low and high else "above" if low else "below"
    checks = run.tables["checks"]
    processes = int(checks.loc[checks.config_id == run.base_id, "processes"].max())
    decision = decide(shown[1], shown[2], *(x for x in (low, high) if x), holds=holds, log=True, df=df,
                      processes=processes)
    return decision.judged(measured=f"{what} = {interval(*shown, 'x')} at the base configuration ({e.mode})",
                           headline=Estimate(*shown, "x", what), edges=tuple(x for x in (low, high) if x))


@cache
def judges(name: str, path: Path) -> Judges:
    """Each expectation's judge, registered under its key."""
    found = Judges(spec(name, path))
    for expectation in read(path).expectations:
        found(expectation.key)(lambda run, e=expectation: judge(e, run))
    return found

"""A benchmark file's expectations judged like claims: the paired ratio at the base, on its 95% interval."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from ..contract.decisions import decide, interval, ratio_of
from ..contract.judging import Judges, Run
from ..contract.verdicts import Estimate, Judged
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


def judge(expectation: Expectation, run: Run) -> Judged:
    """One expectation on this run, shown as its sentence speaks (a speed-up where it says faster)."""
    e = expectation
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

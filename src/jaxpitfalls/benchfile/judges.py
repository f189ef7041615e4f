"""A benchmark file's expectations judged like claims: the paired ratio at the base, on its 95% interval."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..contract.decisions import decide, interval, ratio_of
from ..contract.judging import Judges, Run
from ..contract.verdicts import Estimate, Judged
from .expectations import Expectation
from .reader import read
from .spec import spec


def ratio(run: Run, a: str, b: str, mode: str) -> tuple[float, float, float]:
    """t(a) / t(b) with its 95% interval at the base, from whichever comparison row times the pair."""
    if ((run.comp.variant == a) & (run.comp.baseline == b)).any():
        return ratio_of(run.pair(a, b, mode=mode))
    value, low, high = ratio_of(run.pair(b, a, mode=mode))
    return 1 / value, 1 / high, 1 / low


def judge(expectation: Expectation, run: Run) -> Judged:
    """One expectation on this run, shown as its sentence speaks (a speed-up where it says faster)."""
    e = expectation
    r = ratio(run, e.a, e.b, e.mode)
    shown = (1 / r[0], 1 / r[2], 1 / r[1]) if e.faster else r
    what, low, high = e.spoken
    holds = "inside" if low and high else "above" if low else "below"
    decision = decide(shown[1], shown[2], *(x for x in (low, high) if x), holds=holds, log=True)
    return decision.judged(measured=f"{what} = {interval(*shown, 'x')} at the base configuration ({e.mode})",
                           headline=Estimate(*shown, "x", what))


@cache
def judges(name: str, path: Path) -> Judges:
    """Each expectation's judge, registered under its key."""
    found = Judges(spec(name, path))
    for expectation in read(path).expectations:
        found(expectation.key)(lambda run, e=expectation: judge(e, run))
    return found

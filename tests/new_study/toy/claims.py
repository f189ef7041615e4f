"""The toy study's one claim, judged on this run's tables (contract.judging: one function per claim key)."""

from __future__ import annotations

from jaxpitfalls.contract.decisions import decide, interval
from jaxpitfalls.contract.judging import Judges, Run
from jaxpitfalls.contract.verdicts import Estimate, Judged

from .spec import SPEC

JUDGES = Judges(SPEC)


@JUDGES("jit_faster")
def _jit_faster(run: Run) -> Judged:
    r = run.pair("eager", "jit")
    return Judged(measured=interval(r.ratio, r.ratio_ci_low, r.ratio_ci_high, "x"),
                  verdict=decide(r.ratio_ci_low, r.ratio_ci_high, 1, log=True).verdict(),
                  headline=Estimate(r.ratio, r.ratio_ci_low, r.ratio_ci_high, "x", "eager / jit"))

"""What a study's claims module returns per claim (`Judged`, with the `Bound` of what this hardware can show)
and the verdicts the report reads: the three a claim's rule gives, and those no rule gives.

A study's `claims.py` builds them (its rules' helpers are contract/decisions.py's); the report's engine and its
renderer read them (contract/judging.py, report/scorecard/build.py, markdown.py), never a study's package.
"""

from __future__ import annotations

from dataclasses import dataclass

# The verdicts a claim's rule gives: held, failed, or could not be decided (contract.decisions.verdict).
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
# The verdicts of claims no report judges (build.py gives them, markdown.py shows them without advice).
NOT_MEASURED, CHECKED = "not measured", "checked"
# A claim whose largest possible effect on this hardware lies inside its interval: no run here could decide it,
# however long, so it is told apart from an inconclusive one that more samples might decide.
NOT_TESTABLE = "not testable"
# A claim whose worker processes' own samples reach opposite verdicts, one reproduced, another not (build.py).
UNSTABLE = "unstable"
# What a claim's `measured` says where its verdict rests on a configuration smaller than the write-up's structure
# (contract.decisions.judged_at, dispatch's width_note): the engine marks such a verdict (`Judged.supporting`) from
# these words, so the scorecard's tally counts apart exactly what its cells say.
SUPPORTING = "supporting only"
# What it says where the verdict rests on another kind of device than the write-up's effect needs (an accelerator's
# effect judged on a CPU, a sharding judged on one device): supporting only too, marked as such in `ours`.
ANOTHER_DEVICE = f"on another device than the write-up's ({SUPPORTING})"


def speedup_removing(total: float, removable: float) -> float:
    """The largest speedup removing `removable` of a `total` (ms of a pass, or a spread) could give:
    total / (total - part)."""
    return total / max(total - removable, 1e-12)


@dataclass(frozen=True)
class Bound:
    """The largest effect this run's hardware can show for a claim: what the effect consists of here
    (`removable` of a `total`: ms of a pass or step, the copies a fix removes, the overhead a variant adds; or
    a spread, the part of a variant's spread above a fixed workload's in the same rounds), and
    `needs`, the smallest ratio the claim needs to hold (its rule's edge; the engine raises it to the size the
    write-up claims, contract.judging.claimed_size). `contract.decisions.applicable` judges every bounded claim by it
    alike, reading the claim's `judged_ratio` oriented as the bound is (above 1: the effect), so that a run
    measuring more than the bound allows refutes the bound instead of being called not testable by it.
    `scope`: what the bound holds for, said in the verdict (the hardware, or only this run where the run's own
    conditions set it: a noisy machine's spread)."""

    total: float
    removable: float
    what: str
    needs: float = 1.0
    scope: str = "on this hardware"

    @property
    def ratio(self) -> float:
        """`speedup_removing` this bound's part: where it lies inside a claim's band, no run on this hardware can
        reproduce the claim."""
        return speedup_removing(self.total, self.removable)


@dataclass(frozen=True)
class Estimate:
    """The number a claim's verdict rests on, as the scorecard's `ours` cell shows it: the estimate with its 95%
    interval (`low == high` where it has none: a count, one profiler trace), in `unit` (`x`, ` ms`, `%`, ...),
    and `what`, a few words naming the quantity where the claim's own words do not (`filter_jit / jit_partition`).
    One number per claim, so a reader sees what decided it, its sign included, without reading the reasoning."""

    value: float
    low: float
    high: float
    unit: str = "x"
    what: str = ""

    @property
    def has_interval(self) -> bool:
        return not self.low == self.high == self.value


@dataclass(frozen=True, kw_only=True)
class Judged:
    """One claim as its study's claims module judged it on this run (`claim`: its key, which the engine
    names it by: contract.judging.Judges): what was measured, the verdict (by the rule its
    spec's claim states), and per number of the claim (its spec's `numbers`) ours in that unit as (estimate,
    low, high), or None where this run did not measure it; `headline`, the number the verdict rests on (the
    scorecard's `ours` cell; the engine takes `judged_ratio` where a claim gives none); `judged_ratio`, the ratio
    the verdict rests on, which a bound is held against; `reason`, why the rule could
    not tell, kept apart from `measured` (a claim this hardware cannot show drops it); `bound`, the largest
    effect this hardware can show; `absent_here`, why this run's hardware has none of the claim's effect (the engine
    sets it from the claim's `accelerator` on a CPU backend) (both read by `contract.decisions.applicable`);
    `supporting`, whether the verdict rests on a configuration smaller than the write-up's structure (the engine
    sets it where `measured` says `SUPPORTING`): it supports the claim, it does not reproduce it,
    and is counted apart."""

    measured: str
    verdict: str
    claim: str = ""
    headline: Estimate | None = None
    ours: tuple = ()
    judged_ratio: tuple[float, float, float] | None = None
    reason: str = ""
    bound: Bound | None = None
    absent_here: str = ""
    supporting: bool = False

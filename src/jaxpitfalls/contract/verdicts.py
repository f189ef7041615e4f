"""What a study's claims module returns per claim (`Judged`, `Bound`) and the verdicts the report reads, so the
report never imports a study's package."""

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
    """The largest speedup removing `removable` of a `total` could give."""
    return total / max(total - removable, 1e-12)


@dataclass(frozen=True)
class Bound:
    """The largest effect this hardware can show for a claim: `removable` of `total` (ms, copies, a spread), `needs`
    the smallest ratio the claim needs; a run measuring beyond it refutes it."""

    total: float
    removable: float
    what: str
    needs: float = 1.0
    scope: str = "on this hardware"

    @property
    def ratio(self) -> float:
        """Inside a claim's band, no run here can reproduce the claim."""
        return speedup_removing(self.total, self.removable)


@dataclass(frozen=True)
class Estimate:
    """The number a verdict rests on, as the `ours` cell shows it (`low == high`: no interval); `what` names the
    quantity where the claim's words do not."""

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
    """One claim as its study judged it: `ours` (per number: estimate, low, high, or None), `judged_ratio` (held
    against `bound`), `reason` (why undecided), `absent_here` (why this hardware lacks the effect), `supporting`
    (on a smaller configuration: counted apart), `edges` (what the rule holds the headline to, drawn)."""


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
    edges: tuple[float, ...] = ()

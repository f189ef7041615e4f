"""One shape for every study's claims: `claims.py` registers a function per judged claim (`@JUDGES("slower")`)
reading one `Run`; every judged claim must have one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, wraps
from typing import Any

import pandas as pd

from .decisions import at_write_up_structure, judged_at, row, rows
from .interface import Claim, StudySpec
from .tables import base_config_id, measured
from .verdicts import NOT_MEASURED, SUPPORTING, Bound, Estimate, Judged


@dataclass(frozen=True)
class Run:
    """What every claim reads: tables by name, proper measurements (`comp`, `steps`) and the base, computed once."""

    spec: StudySpec
    tables: Mapping[str, pd.DataFrame]
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def comp(self) -> pd.DataFrame:
        """The paired comparisons of the proper measurements."""
        return measured(self.tables["comparisons"])

    @cached_property
    def steps(self) -> pd.DataFrame:
        """Every variant's timings of the proper measurements."""
        return measured(self.tables["steps"])

    @cached_property
    def base_id(self) -> str:
        """The base configuration: the one on every sweep axis."""
        return base_config_id(measured(self.tables["checks"]))

    @cached_property
    def holds_write_up_structure(self) -> bool:
        """Whether the run timed any configuration at a structure the write-up measured at."""
        checks = self.tables["checks"]
        numbers = [n for claim in self.spec.claims.values() for n in claim.numbers
                   if n.at and set(n.at) <= set(checks.columns)]
        return not numbers or any(not rows(checks, **n.at).empty for n in numbers)

    @cached_property
    def backend(self) -> str:
        """`cpu`, `gpu` or `tpu`."""
        return str(self.tables["environment"].backend.iloc[0])

    def pair(self, variant: str, baseline: str | None = None, config_id: str | None = None,
             **where: Any) -> pd.Series:
        """The comparison row of `variant` against `baseline` (default: the floor) at `config_id` (default: the
        base)."""
        return row(self.comp, variant=variant, baseline=baseline or self.spec.floor,
                   config_id=config_id or self.base_id, **where)

    def at(self, key: str) -> str | None:
        """The configuration at the write-up's structure for claim `key`, if run."""
        return at_write_up_structure(self.comp, self.spec.claims[key].numbers[0])

    def headline(self, key: str) -> tuple[str, str, bool]:
        """Where claim `key` is judged: configuration, words saying where, and whether it is the write-up's
        structure."""
        return judged_at(self.comp, self.spec.claims[key].numbers[0], self.base_id)

    def probed(self, name: str) -> pd.Series | None:
        """The base's checks row where its job recorded probe `name` (`<name>_*` columns), else None."""
        checks = row(measured(self.tables["checks"]), config_id=self.base_id)
        found = [key for key in checks.index if key.startswith(f"{name}_")]
        return checks if found and not checks[found].isna().all() else None

    def derived(self, compute: Callable[[Run], Any]) -> Any:
        """`compute(self)`, computed once per run."""
        if compute not in self._derived:
            self._derived[compute] = compute(self)
        return self._derived[compute]


def not_probed(name: str) -> Judged:
    """A claim judged on probe `name` where the job recorded none."""
    return Judged(measured=f"not measured: the job recorded no {name} probe (results older than it)",
                  verdict=NOT_MEASURED)


def once_per_run(compute: Callable[[Run], Any]) -> Callable[[Run], Any]:
    """`compute`, computed once per run however many claims call it."""

    @wraps(compute)
    def cached(run: Run) -> Any:
        return run.derived(compute)

    return cached


class Judges:
    """A study's judged claims by key: `@judges("key")` registers a claim's function (refused for an unknown
    or twice-judged key); `judge(tables)` runs them in the spec's order."""

    def __init__(self, spec: StudySpec) -> None:
        self.spec = spec
        self._by_key: dict[str, Callable[[Run], Judged]] = {}

    def __call__(self, key: str) -> Callable[[Callable[[Run], Judged]], Callable[[Run], Judged]]:
        claim = self.spec.claims.get(key)
        if claim is None or not claim.judged:
            raise KeyError(f"study {self.spec.name}: no judged claim {key!r} in its spec")
        if key in self._by_key:
            raise KeyError(f"study {self.spec.name}: claim {key!r} is judged twice")

        def register(judge: Callable[[Run], Judged]) -> Callable[[Run], Judged]:
            self._by_key[key] = judge
            return judge

        return register

    def missing(self) -> list[str]:
        """The spec's judged claims no function judges."""
        return [k for k, c in self.spec.claims.items() if c.judged and k not in self._by_key]

    def judge(self, tables: Mapping[str, pd.DataFrame]) -> list[Judged]:
        """Every judged claim, in the spec's order; one without its function is refused, so none vanishes."""
        missing = self.missing()
        if missing:
            raise KeyError(f"study {self.spec.name}: no function judges {missing}")
        run = Run(self.spec, tables)
        return [self.one(run, key) for key in self.spec.claims if key in self._by_key]

    def one(self, run: Run, key: str) -> Judged:
        """Claim `key` judged: named, `supporting` marked, headline defaulting to its judged ratio, bound raised to
        the claimed size, `absent_here` for an accelerator-only claim on a CPU."""
        judged = replace(_supporting(self._by_key[key](run), run), claim=key)
        claim = self.spec.claims[key]
        if judged.headline is None and judged.judged_ratio is not None:
            judged = replace(judged, headline=Estimate(*judged.judged_ratio, "x"))
        if judged.bound is not None:
            judged = replace(judged, bound=claimed_size(judged.bound, claim))
        if claim.accelerator and run.backend == "cpu":
            judged = replace(judged, absent_here=claim.accelerator)
        return _said(judged)


def claimed_size(bound: Bound, claim: Claim) -> Bound:
    """The bound raised to the size the write-up claims (a slowdown turned around): a claim larger than the
    hardware can show is not testable."""
    number = claim.numbers[0] if claim.numbers else None
    if number is None or not number.unit.startswith("x"):
        return bound
    claimed = number.low if number.low >= 1 else 1 / number.high
    return replace(bound, needs=max(bound.needs, claimed))


NOT_MEASURED_TEXT = "not measured:"
NO_STRUCTURE = f" ({SUPPORTING}: this run timed no configuration at the write-up's structures)"


def _supporting(judged: Judged, run: Run) -> Judged:
    """Marked `supporting` where its words say SUPPORTING or the run timed nothing at the write-up's structures."""
    if judged.verdict == NOT_MEASURED:
        return judged
    if SUPPORTING not in judged.measured and not run.holds_write_up_structure:
        judged = replace(judged, measured=judged.measured + NO_STRUCTURE)
    return replace(judged, supporting=SUPPORTING in judged.measured)


def _said(judged: Judged) -> Judged:
    """Refused where words and verdict disagree on whether it was measured."""

    if judged.measured.startswith(NOT_MEASURED_TEXT) != (judged.verdict == NOT_MEASURED):
        raise ValueError(f"claim {judged.claim}: verdict {judged.verdict!r} beside {judged.measured[:80]!r}: a claim "
                         f"the run did not measure has verdict {NOT_MEASURED!r}, and its text starts "
                         f"{NOT_MEASURED_TEXT!r}")
    return judged

"""What a study is to the workflow: a package under `studies/` with `spec.py` (`SPEC`, JAX-free), `measure.py`
(`Measure`, JAX), `report.py` (`Report`, JAX-free), `claims.py` (`JUDGES`), `config.schema.yaml` and a docstring
the report shows."""


from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..breakdown import Component
from .settings import Timing, Traced

# A configuration's size check: (names the config key of a configuration's size, for the message; the
# configuration; its model's sizes, `model["max_positions"]` and `model.label("max_positions")`; the whole
# config) -> one line per problem.
SizeCheck = Callable[[Callable[[str], str], dict[str, Any], Any, dict[str, Any]], Iterable[str]]

# The code paths a configuration takes that its study's settings and values choose, named (kinds.py): (the
# configuration; its timing settings; whether it is the study's base) -> names, e.g. generation's "warmup
# demonstration". The tests check that they run every kind config.yaml and the presets run.
Kinds = Callable[[dict[str, Any], Timing, bool], Iterable[str]]

# How a claim beyond its write-up begins (Claim.beyond): the report counts such claims apart.
BEYOND = "(beyond the write-up) "

# Units whose first word makes a number dimensionless: a ratio, a share, an exponent, a count.
DIMENSIONLESS = ("x", "%", "exponent", "compilations")


@dataclass(frozen=True)
class Number:
    """A write-up's number for a claim, in the report's unit, measured at `at` (the model's structure).
    `structural`: dimensionless and set by the structure, so sized here; else `differs` says what differs (`{here}`:
    our device). `unsized`: why no run can size it; `sized_by`: the claim sizing it; `scale`: other sizes."""

    low: float
    high: float
    unit: str
    structural: bool
    at: Mapping[str, Any] = field(default_factory=dict)
    differs: str = ""
    unsized: str = ""
    sized_by: str = ""
    scale: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.low <= self.high:
            raise ValueError(f"write-up number: need 0 < low <= high, got {self.low}..{self.high} {self.unit}")
        if self.structural and not self.dimensionless:
            raise ValueError(f"write-up number in {self.unit.strip()!r}: only a dimensionless number "
                             f"(unit starting {DIMENSIONLESS}) can be set by the structure alone")
        if not self.structural and not self.differs:
            raise ValueError(f"write-up number {self.low:g}{self.unit}: say what differs from our measurement")
        self.differs.format(here="")  # its only field: `{here}`, the run's device (magnitude.device_here)

    @property
    def dimensionless(self) -> bool:
        return (self.unit.split() or [""])[0] in ("", *DIMENSIONLESS)

    @property
    def is_share(self) -> bool:
        return self.unit.strip().startswith("%")


@dataclass(frozen=True)
class Advice:
    """What a JAX user should do about a claim, by verdict: the report's findings. Empty: say nothing."""

    reproduced: str
    not_reproduced: str = ""
    inconclusive: str = ""


@dataclass(frozen=True)
class Claim:
    """A claim of the study's write-up; `not_measured` or `checked` give why an unjudged claim has no verdict."""

    text: str
    write_up: str
    numbers: tuple[Number, ...] = ()
    rule: str = ""
    advice: Advice | None = None
    not_measured: str = ""
    checked: str = ""
    beyond: bool = False  # not the write-up's claim: ours, beside it (counted apart in the scorecard)
    # What of the claim's effect exists only on an accelerator (a device apart from the host, reached over a
    # bus): on a CPU backend the engine makes it not testable whatever it came out, saying this
    # (contract.decisions.applicable): a "no" there refutes nothing, and a "yes" is not the claim's effect.
    accelerator: str = ""
    # The key of the claim whose effect this one's verdict measures again: the same measurement read from the other
    # side (the write-up states one effect twice, e.g. a speedup understated and the variant slowed), or that effect
    # with others added to it (all fixes together, jit's gain the most of them): the tally counts the effect once
    # and the scorecard figure draws one mark, so two rows never look like two agreeing results.
    restates: str = ""
    # A user's expectation (a benchmark file's EXPECT), not a write-up's claim: judged by the same rules, counted apart.
    expected: bool = False

    def __post_init__(self) -> None:
        if self.judged != bool(self.rule):
            raise ValueError(f"claim {self.text!r}: a judged claim says its rule, one no report judges has none")
        if self.beyond != self.text.startswith(BEYOND):
            raise ValueError(f"claim {self.text!r}: a claim beyond the write-up says so, first: {BEYOND!r}")

    @property
    def judged(self) -> bool:
        return not (self.not_measured or self.checked)

    @property
    def stated_rule(self) -> str:
        """The rule as published, with the CPU-backend clause for an accelerator-only effect."""
        if not self.accelerator:
            return self.rule
        return f"{self.rule}; not testable on a CPU backend: {self.accelerator}"


@dataclass(frozen=True)
class StudySpec:
    """A study's declaration: `floor` is what each variant is compared with (plus `extra_pairs`); `timing`, `traced`:
    its settings types; `anchored`: keys compared across jobs, so such a configuration also times the base in its
    own job, paired in time."""

    name: str
    variants: tuple[str, ...]
    floor: str
    modes: Mapping[str, str]
    traced_mode: str
    trace_components: tuple[Component, ...]
    claims: Mapping[str, Claim]
    schema: Path | Mapping[str, Any]  # its config.schema.yaml, or the fragment itself (a benchmark file's)
    reads_corpus: bool = False
    extra_pairs: tuple[tuple[str, str], ...] = ()
    check_sizes: SizeCheck | None = None
    lockstep: bool = False
    timing: type[Timing] = Timing
    traced: type[Traced] = Traced
    kinds: Kinds | None = None
    anchored: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        named = {self.floor, *(v for pair in self.extra_pairs for v in pair)}
        if not named <= set(self.variants):
            raise ValueError(f"study {self.name}: {sorted(named - set(self.variants))} are not among its "
                             f"variants {self.variants}")
        if self.traced_mode not in self.modes:
            raise ValueError(f"study {self.name}: traced mode {self.traced_mode!r} is not one of {list(self.modes)}")
        for key, claim in self.claims.items():
            named = self.claims.get(claim.restates)
            if claim.restates and (named is None or not named.judged or named.restates or key == claim.restates):
                raise ValueError(f"study {self.name}: claim {key!r} restates {claim.restates!r}, which is not "
                                 "another judged claim with a measurement of its own")


@runtime_checkable
class Measure(Protocol):
    """A study's measuring code (`measure.py`): one job per configuration."""

    def run(self, conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
        """Time every variant of `conf`; the result document that result.schema.json describes."""

    def trace(self, conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
        """A profiler pass of the traced mode into `out_dir`; returns the directory."""


@runtime_checkable
class Lockstep(Protocol):
    """A study's measuring code timed in lockstep against other environments: variants prepared once, then sampled."""

    def samplers(self, conf: dict[str, Any], inputs: dict[str, str], settings: Timing,
                 variants: Sequence[str] = ()) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """Per mode and variant (only `variants` where it names some), a warm sampler of one compilation-free call
        (seconds), after `run`'s checks; and what to record of the preparation."""


@runtime_checkable
class Report(Protocol):
    """A study's report code (`report.py`), reading the result tables by name."""

    FIGURES: Mapping[str, str]  # figure name -> caption
    # The claims whose advice opens the report, in order, so that it tells the study's whole picture (its main
    # effect, where the effect stops, what it costs) whatever came out first.
    FINDINGS: tuple[str, ...]

    def tables(self, tables: dict[str, Any]) -> list[tuple[str, str, Any]]:
        """The study's own tables: (title, one-paragraph introduction, data frame)."""

    def figures(self, tables: dict[str, Any]) -> dict[str, Any]:
        """Figures by name (each named in FIGURES)."""

"""What a study is, as the rest of the workflow reads it, and what its two code parts must provide.

A study is one package under `studies/`: `spec.py` holds `SPEC`, a `StudySpec` (JAX-free: the plan, the
config check, the trace parser and the report read it without importing measuring code); `measure.py`
implements `Measure` (it imports JAX); `report.py` implements `Report` (JAX-free, reading only the spec and
the result tables); `claims.py` judges the spec's claims (`JUDGES`: one function per claim key,
contract.judging, each returning a `Judged`: verdicts.py); `config.schema.yaml` is its block of the config
schema; the package's docstring describes it in the report. registry.py finds the studies and hands out
these parts by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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
    """A number the write-up gives for a claim (a range where it gives one), in the unit the report measures
    it in, and the base configuration keys (`at`: the model's structure) it was measured at. `structural`:
    a dimensionless number (ratio, share, exponent, count) set by the model's structure, which this machine
    repeats at the same structure, so its size is judged here. Otherwise `differs` says what differs between
    the write-up's measurement and ours (host, accelerator, sizes, baseline; `{here}` names the run's device),
    and only the factor is shown: an absolute time or rate always depends on the host. `unsized`: why no run
    here can size it (the write-up ties it to a topology or a dataset this run does not have): listed apart in the
    tally, never scored. `sized_by`: the claim that measures
    this same write-up number as the write-up did, which sizes it (counted once, there). `scale`: the write-up's other
    dimensions that set the claim's size (batch, sequence length): a configuration of its model's shape (`at`) but
    other sizes is labelled with what differs and counted apart, never called the write-up's structure."""

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
    """What a JAX user should do about a claim, by how it came out on this run: the report's findings are
    these sentences, chosen by the verdicts. An empty one says nothing for that outcome."""

    reproduced: str
    not_reproduced: str = ""
    inconclusive: str = ""


@dataclass(frozen=True)
class Claim:
    """A claim of the study's write-up: what it says, the number (or finding) it gives for it, and those
    numbers in measurable units where it has them (the report's claim row then gives `ours`: per number,
    ours in its unit as (estimate, low, high), or None where this run did not measure it).

    `rule`: how the study's report decides it (the report's rule column and docs/results/claims.md read it here, so
    the text lives beside the claim it judges). `advice` turns its verdict into the report's findings.
    `not_measured` says why no run of this workflow judges it (multiple hosts, INT8, an accelerator, a
    variant not built); `checked` says how every job checks it instead of timing it (a guard that fails the
    job, a method the harness follows), so a finished run shows it holds. Either way the claim is listed with
    its reason and the study's report does not judge it."""

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
        """The rule as the scorecard and docs/results/claims.md state it, with the engine's CPU-backend clause where the
        claim's effect needs an accelerator."""
        if not self.accelerator:
            return self.rule
        return f"{self.rule}; not testable on a CPU backend: {self.accelerator}"


@dataclass(frozen=True)
class StudySpec:
    """The study's name, its variants and the floor each is compared with (plus `extra_pairs`), its modes
    with what each measures, the mode and components of its trace breakdown, its write-up's claims, whether
    it reads the text corpus, its config schema fragment and its size checks; `lockstep`: its measure.py
    offers `samplers` (Lockstep), so other environments can be timed against it in lockstep;
    `timing` and `traced`: its `measure` settings as its timing and its trace read them (settings.py), whose
    keys are all each job is given; `kinds`: the code paths its configurations take (Kinds); `anchored`: the
    keys its claims compare across jobs: a configuration that differs from the base in these alone also times
    the base configuration in its own timing job (plan.timing_configuration's `anchor`), so the comparison is
    paired in time (a shared VM's speed drifts between jobs)."""

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
        """Time every variant of `conf` (inputs: named directories, `model` and `data` where the study reads
        the corpus); the result document that result.schema.json describes."""

    def trace(self, conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
        """A profiler pass of the traced mode into `out_dir`; returns the directory written."""


@runtime_checkable
class Lockstep(Protocol):
    """A study's measuring code that can be timed in lockstep against other environments
    (harness/lockstep.py): its variants prepared once, then sampled on request."""

    def samplers(self, conf: dict[str, Any], inputs: dict[str, str],
                 settings: Timing) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """Per mode, per variant, a warm sampler of one call (seconds, compilation-free: the lockstep worker
        calibrates the calls per sample, the same for every side), after the same checks `run` makes; and what
        to record of the preparation (e.g. the variants' signatures)."""


@runtime_checkable
class Report(Protocol):
    """A study's report code (`report.py`), reading the result tables by name (steps, comparisons, checks,
    overhead, environment)."""

    FIGURES: Mapping[str, str]  # figure name -> caption
    # The claims whose advice opens the report, in order, so that it tells the study's whole picture (its main
    # effect, where the effect stops, what it costs) whatever came out first.
    FINDINGS: tuple[str, ...]

    def tables(self, tables: dict[str, Any]) -> list[tuple[str, str, Any]]:
        """The study's own tables: (title, one-paragraph introduction, data frame)."""

    def figures(self, tables: dict[str, Any]) -> dict[str, Any]:
        """Figures by name (each named in FIGURES)."""

"""The config's `compare` and `history` blocks, typed: a key no field names is refused where the block is read. The
schema fills in the defaults; tests/test_settings.py keeps the two to the same keys."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..contract.settings import without_idle_share


def _refuse_unknown(cls: type, block: Mapping[str, Any], aliases: Mapping[str, str] = {}) -> dict[str, Any]:
    """The block's keys as field names (a key that is a Python keyword under its alias), refusing others."""
    named = {aliases.get(key, key): value for key, value in block.items()}
    unknown = set(named) - {f.name for f in fields(cls)}
    if unknown:
        raise KeyError(f"{cls.__name__} has no setting {sorted(unknown)}")
    return named


@dataclass(frozen=True)
class Side:
    """An environment timed in lockstep: interpreter ("" for this one), variables, and the benchmark file's git
    revision ("": as it is)."""

    python: str
    env: Mapping[str, str]
    revision: str = ""


PYPERF_OPTIONS = ("--copy-env", "--quiet")  # every pair's: its workers see lockstep's environment; defaults otherwise


@dataclass(frozen=True)
class Pyperf:
    """pyperf beside the lockstep on one callable (`mode/variant`; "" for none), with options beyond its
    defaults."""

    callable: str
    options: tuple[str, ...]
    published: bool = False  # the calibration reads the published pairs, timed apart (`make calibrate-pyperf`)


@dataclass(frozen=True)
class Lockstep:
    """What a lockstep job reads of `compare` and records: editing the threshold or the gate reruns no job."""

    sides: Mapping[str, Side]
    rounds: int
    samples_per_block: int
    processes: int
    target_precision: float = 0.0  # 0: `processes` only
    target_share: float = 1.0  # of a job's rows, to reach target_precision
    max_processes: int = 0  # with target_precision: 0, twice `processes`
    variants: tuple[str, ...] = ()  # the study's variants timed (empty: all)

    @classmethod
    def of(cls, block: Mapping[str, Any]) -> Lockstep:
        named = {f.name: block[f.name] for f in fields(cls) if f.name in block}
        return cls(**named | {"sides": _sides(named["sides"]), "variants": tuple(named.get("variants", ()))})

    @property
    def most_processes(self) -> int:
        """The most fresh workers per side a configuration is timed in: `processes` without a target."""
        if not self.target_precision:
            return self.processes
        return max(self.processes, self.max_processes or 2 * self.processes)

    def recorded(self) -> dict[str, Any]:
        return {"sides": list(self.sides), "rounds": self.rounds, "samples_per_block": self.samples_per_block,
                "processes": self.processes, "target_precision": self.target_precision,
                "target_share": self.target_share, "max_processes": self.most_processes,
                **({"variants": list(self.variants)} if self.variants else {})}


def allocated(block: Mapping[str, Any], config_id: str) -> dict[str, Any]:
    """`Lockstep`'s fields of a `compare` block, `config_id`'s own processes and rounds (`allocation`) over them;
    no `variants` where it names none (all), as jobs timed before the key existed ran."""
    named = calibrated(block) | block.get("allocation", {}).get(config_id, {})
    return without_idle_share({f.name: named[f.name] for f in fields(Lockstep) if f.name in named})


# Read by the gate and the comparison's report alone: editing them reruns no calibration page.
GATE_ONLY = ("primary", "fail_on_regression")


def calibrated(block: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key not in GATE_ONLY and (key != "variants" or value)}


def _sides(block: Mapping[str, Mapping[str, Any]]) -> dict[str, Side]:
    return {name: Side(side.get("python", ""), dict(side.get("env", {})), side.get("revision", ""))
            for name, side in block.items()}


@dataclass(frozen=True)
class Compare:
    """config `compare`: a baseline run's comparison or sides timed in lockstep, and the gate."""

    baseline: str
    sides: Mapping[str, Side]
    study: str
    rounds: int
    samples_per_block: int
    processes: int
    target_precision: float
    target_share: float
    max_processes: int
    allocation: Mapping[str, Mapping[str, int]]
    threshold: float
    machine_units: bool
    pyperf: Pyperf
    fail_on_regression: bool
    fail_on_inconclusive: bool
    gate_on: str
    primary: tuple[str, ...] = ()  # the rows the gate judges (patterns); none: every row
    variants: tuple[str, ...] = ()  # the variants the sides time (none: all)

    @classmethod
    def of(cls, block: Mapping[str, Any]) -> Compare:
        named = _refuse_unknown(cls, block)
        return cls(**named | {"sides": _sides(named["sides"]), "primary": tuple(named.get("primary", ())),
                              "variants": tuple(named.get("variants", ())),
                              "pyperf": Pyperf(named["pyperf"]["callable"], tuple(named["pyperf"]["options"]),
                                               named["pyperf"].get("published", False))})


@dataclass(frozen=True)
class History:
    """config `history`: one study timed in an environment per release of a package."""

    package: str
    versions: tuple[str, ...]
    shared_pins: Mapping[str, str]  # the config's `with`: pins every release's environment shares
    pins: Mapping[str, Mapping[str, str]]
    pythons: Mapping[str, str]
    study: str
    repeats: int
    configs: str
    primary: tuple[str, ...] = ()  # the series corrected over themselves alone (patterns); none: every series

    @classmethod
    def of(cls, block: Mapping[str, Any]) -> History:
        named = _refuse_unknown(cls, block, {"with": "shared_pins"})
        return cls(**named | {"versions": tuple(named["versions"]), "primary": tuple(named.get("primary", ()))})

"""The study registry: every package in `studies/` with a `spec.py` is a study (interface.py says what its parts
provide). Adding a folder adds a study; nothing else lists them. Each part is imported by name, only when asked
for: the studies plug in here, so nothing below them imports a study package."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from pathlib import Path

from .contract.interface import Lockstep, Measure, Report, StudySpec

FOLDER = Path(__file__).parent / "studies"
PACKAGE = f"{__name__.split('.')[0]}.studies"  # what the studies are imported as, by name (the plugins)


@cache
def names() -> tuple[str, ...]:
    """Every study, by folder name, sorted (a config runs and reports them in its own order)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules([str(FOLDER)])
                        if m.ispkg and (FOLDER / m.name / "spec.py").is_file()))


def _part(name: str, part: str):
    if name not in names():
        raise KeyError(f"unknown study {name!r}; known: {', '.join(names())}")
    return importlib.import_module(".".join(filter(None, [PACKAGE, name, part])))


def spec(name: str) -> StudySpec:
    """The study's JAX-free spec (`SPEC` in its spec.py)."""
    found = getattr(_part(name, "spec"), "SPEC", None)
    if not isinstance(found, StudySpec) or found.name != name:
        raise TypeError(f"studies/{name}/spec.py must define SPEC = StudySpec(name={name!r}, ...)")
    return found


def _implementing(name: str, part: str, protocol: type):
    module = _part(name, part)
    if not isinstance(module, protocol):
        members = [*protocol.__annotations__, *(k for k, v in vars(protocol).items()
                                                 if callable(v) and not k.startswith("_"))]
        missing = [m for m in members if not hasattr(module, m)]
        raise TypeError(f"studies/{name}/{part}.py does not implement {protocol.__name__}: lacks {missing}")
    return module


def measure(name: str) -> Measure:
    """The study's measuring code (imports JAX)."""
    return _implementing(name, "measure", Measure)


def lockstep(name: str) -> Lockstep:
    """The study's measuring code, for a lockstep comparison (imports JAX); a study without `samplers` in its
    measure.py cannot be timed that way, and says so."""
    return _implementing(name, "measure", Lockstep)


def report(name: str) -> Report:
    """The study's report code (JAX-free)."""
    return _implementing(name, "report", Report)


def judges(name: str):
    """The study's judged claims (`JUDGES` in its claims.py, a contract.judging.Judges of its spec: JAX-free)."""
    found = getattr(_part(name, "claims"), "JUDGES", None)
    if found is None or getattr(found, "spec", None) is not spec(name):
        raise TypeError(f"studies/{name}/claims.py must define JUDGES = Judges(SPEC) (contract.judging)")
    return found


def description(name: str) -> str:
    """The study's package docstring: what the report says it measures and what must hold."""
    return inspect.getdoc(_part(name, "")) or ""


INPUTS = ("model", "data", "anchor_model")


def inputs(named) -> dict[str, str]:
    """A measuring job's input directories by name (`model`; `data` where the study reads the corpus;
    `anchor_model`: the base's, where the configuration is anchored to it), from Snakemake's named input list."""
    return {name: str(path) for name, path in named.items() if name in INPUTS}

"""One package per study: what it is (`spec`: variants, floor, modes, trace components; JAX-free), its
measurement (`measure`: `run` and `trace`, what must hold between the variants) and its report (`report`:
tables, figures, claims; JAX-free). The package's own docstring describes the study. See `plan.STUDIES`."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def load(name: str, part: str = "") -> ModuleType:
    """The study's package (its description), or one part of it (`spec`, `measure`, `report`); imported
    lazily: `measure` pulls in JAX."""
    from ..plan import STUDIES

    if name not in STUDIES:
        raise KeyError(f"unknown study {name!r}; known: {', '.join(STUDIES)}")
    return importlib.import_module(".".join(filter(None, [__name__, name, part])))


INPUTS = ("model", "data")


def inputs(named: Any) -> dict[str, str]:
    """A measuring job's input directories by name (`model`; `data` where the study reads the corpus),
    from Snakemake's named input list."""
    return {name: str(path) for name, path in named.items() if name in INPUTS}

"""One package per study: its measurement (`__init__`: variants, what must hold between them) and its
report (`report`: trace components, figures, claims). See `plan.STUDIES`."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def load(name: str, part: str = "") -> ModuleType:
    """The study of that name, or one part of it (`report`); imported lazily: studies pull in JAX."""
    from ..plan import STUDIES

    if name not in STUDIES:
        raise KeyError(f"unknown study {name!r}; known: {', '.join(STUDIES)}")
    return importlib.import_module(".".join(filter(None, [__name__, name, part])))


INPUTS = ("model", "data")


def inputs(named: Any) -> dict[str, str]:
    """A measuring job's input directories by name (`model`; `data` where the study reads the corpus),
    from Snakemake's named input list."""
    return {name: str(path) for name, path in named.items() if name in INPUTS}

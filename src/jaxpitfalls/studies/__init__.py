"""One module per study: its variants, what must hold between them, its claims. See `plan.STUDIES`."""

from __future__ import annotations

import importlib
from types import ModuleType


def load(name: str) -> ModuleType:
    """The study module of that name (imported lazily: studies pull in JAX)."""
    from ..plan import STUDIES

    if name not in STUDIES:
        raise KeyError(f"unknown study {name!r}; known: {', '.join(STUDIES)}")
    return importlib.import_module(f"{__name__}.{name}")

"""The models refuse what they cannot compute: JAX clamps an index past a table's end, silently timing another model.
Lengths are checked while tracing; token ids on concrete inputs before any timed region."""

from __future__ import annotations

import numpy as np
from jaxtyping import Array


class OutsideTable(ValueError):
    """A position or token id past the end of the table it indexes."""


def require_positions(length: int, table: Array, model: str) -> None:
    """`length` positions (a static shape) against a position table of `table.shape[0]` rows."""
    if length > table.shape[0]:
        raise OutsideTable(f"{model}: {length} positions asked for, but its position table has {table.shape[0]} "
                           "(max_positions); JAX would silently reuse the last one past its end")


def require_ids(ids, table: Array, model: str) -> None:
    """Concrete token ids (before any timed region) against an embedding table of `table.shape[0]` rows."""
    ids = np.asarray(ids)
    if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise OutsideTable(f"{model}: token ids {ids.min()}..{ids.max()}, but its vocabulary has {table.shape[0]} "
                           "(vocab_size); JAX would silently clamp the ids past its end")

"""A benchmark file's variant outputs as one flat host array a call, and the structure it came from."""

from __future__ import annotations

import operator
from itertools import zip_longest
from typing import Any

import jax
import numpy as np

from ..harness.variants import VariantOutputsDisagree


def _arrays(out: Any) -> list[tuple[str, Any]]:
    """Each array or number leaf with its path (a dict's, a NamedTuple's or a Module's keys read alike)."""
    found = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(out)[0]:
        if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        if isinstance(leaf, jax.Array | np.ndarray | np.generic | int | float | complex | bool):
            found.append(("".join(_key(k) for k in path), leaf))
    return sorted(found, key=lambda item: item[0])  # by path: a dict's and a NamedTuple's fields alike


def _key(key: Any) -> str:
    for attribute in ("key", "name", "idx"):  # DictKey, GetAttrKey, SequenceKey
        if hasattr(key, attribute):
            return f"[{getattr(key, attribute)!r}]"
    return str(key)


def arrays_of(out: Any) -> list[Any]:
    """A call's array leaves themselves, in `host`'s order."""
    return [leaf for _, leaf in _arrays(out) if isinstance(leaf, jax.Array | np.ndarray)]


def idle_call(before: Any, later: Any, programs: int, calls: bool) -> str:
    """Why a call's time would not be its work ("" where it is): it runs programs but returns no array to wait
    on, or runs none, `calls` nothing and returns the call before's very arrays (`lambda: out`)."""
    if programs and not _arrays(later):
        return ("returns no array, so nothing is waited for: its time would be the dispatch alone, its work running "
                "on into later samples. Return what it computes (a call that blocks inside: return the array)")
    ours, earlier = arrays_of(later), arrays_of(before)
    if not (programs or calls) and ours and len(ours) == len(earlier) and all(map(operator.is_, ours, earlier)):
        return ("compiles no program, calls nothing and returns the very arrays of the call before: its work ran in "
                "the builder, before the timer. Do it in the call the builder returns (`lambda: f(x)`, not "
                "`lambda: out`)")
    return ""


def on_host(out: Any) -> bool:
    """Whether a call returned host values alone (NumPy arrays, numbers): it waited for its work inside."""
    leaves = _arrays(out)
    return bool(leaves) and not any(isinstance(leaf, jax.Array) for _, leaf in leaves)


def host(out: Any) -> np.ndarray:
    """A call's outputs as one flat float64 (or complex128) host array, so two variants' outputs subtract."""
    leaves = [np.ravel(np.asarray(leaf)) for _, leaf in _arrays(out)]
    flat = np.concatenate(leaves) if leaves else np.zeros(0)
    return flat.astype(np.complex128 if np.iscomplexobj(flat) else np.float64)


def structure(out: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each array leaf's path and shape, in the order `host` lays them out."""
    return tuple((path, np.shape(leaf)) for path, leaf in _arrays(out))


def require_same_structure(structures: dict[str, tuple], floor: str) -> None:
    """Every variant's outputs laid out as the floor's (else leaves would be matched by position alone)."""
    for name, found in structures.items():
        if found != structures[floor]:
            start = next(i for i, (a, b) in enumerate(zip_longest(found, structures[floor])) if a != b)
            ours, theirs = (", ".join(f"{path or 'the output'} shape {shape}" for path, shape in s[start:start + 6])
                            for s in (found, structures[floor]))
            raise VariantOutputsDisagree(
                f"{name!r} and {floor!r} return outputs of different structure: {name!r} gives {ours or 'none'}, "
                f"{floor!r} gives {theirs or 'none'} (array leaves by path and shape, from the first that differs)")

"""Variants prove they are themselves: a signature of the code path that ran, and equal outputs. Each guard
raises on failure, else returns what it compared, stored as the result's `checks` (never a literal `True`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any

import numpy as np

from ..formatting import short


class VariantsIndistinguishable(RuntimeError):
    """Two variants that must be different code paths recorded the same signature."""


class VariantOutputsDisagree(RuntimeError):
    """Two variants that must compute the same thing gave different outputs."""


RETRACES = "retraces"  # a signature whose warm call compiled: tracing's Python varies from process to process
PYTHON_KEYS = ("python", "python_calls")  # a signature's fingerprint of the Python a warm call goes through


def fingerprint(text: str) -> str:
    """Short sha256 of a program text or tree description."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def require_distinct(
    signatures: Mapping[str, Mapping[str, object]], pairs: Iterable[tuple[str, str]] | None = None
) -> dict[str, int]:
    """Fail unless every pair (default: all) recorded different signatures; returns the counts."""
    pairs = list(pairs if pairs is not None else combinations(sorted(signatures), 2))
    for a, b in pairs:
        if dict(signatures[a]) == dict(signatures[b]):
            raise VariantsIndistinguishable(
                f"variants {a!r} and {b!r} recorded the same signature {dict(signatures[a])}: they ran the "
                "same code path, so comparing them would report a meaningless ratio"
            )
    distinct = {repr(sorted(dict(s).items())) for s in signatures.values()}
    return {"variants": len(signatures), "pairs_compared": len(pairs), "distinct_signatures": len(distinct)}


def require_agree(
    outputs: Mapping[str, np.ndarray], reference: str, exact: bool, rtol: float = 1e-5, atol: float = 1e-6
) -> dict[str, object]:
    """Every variant's output equals the reference's (bitwise if `exact`)."""
    ref = np.asarray(outputs[reference])
    tolerance = f"rtol={short(rtol)}, atol={short(atol)}"
    how = "bitwise" if exact else f"within {tolerance}"
    differences, bitwise = {}, {}
    for name, out in outputs.items():
        out = np.asarray(out)
        if out.shape != ref.shape:
            raise VariantOutputsDisagree(f"{name!r} output shape {out.shape} != {reference!r} {ref.shape}")
        differences[name] = float(np.max(np.abs(out - ref))) if out.size else 0.0
        bitwise[name] = bool(np.array_equal(out, ref))
        if not (bitwise[name] if exact else np.allclose(out, ref, rtol=rtol, atol=atol)):
            raise VariantOutputsDisagree(
                f"{name!r} and {reference!r} outputs differ {'bitwise' if exact else 'beyond ' + tolerance}: "
                f"max |diff| = {short(differences[name])}"
            )
    return {"reference": reference, "compared": how, "values": int(ref.size), "max_abs_difference": differences,
            "bitwise_equal": bitwise}


def require_same_trees(trees: Mapping[str, object], reference: str) -> dict[str, object]:
    """Every variant's pytree equals the reference's: structure, bitwise leaves, sharding."""
    import jax

    ref_leaves, ref_def = jax.tree_util.tree_flatten(trees[reference])
    for name, tree in trees.items():
        leaves, treedef = jax.tree_util.tree_flatten(tree)
        if treedef != ref_def:
            raise VariantOutputsDisagree(f"{name!r} and {reference!r} built trees of different structure")
        for i, (a, b) in enumerate(zip(leaves, ref_leaves, strict=True)):
            if not np.array_equal(np.asarray(a), np.asarray(b)):
                raise VariantOutputsDisagree(f"{name!r} and {reference!r} differ in the values of leaf {i}")
            if getattr(a, "sharding", None) != getattr(b, "sharding", None):
                raise VariantOutputsDisagree(
                    f"{name!r} and {reference!r} shard leaf {i} differently: {a.sharding} vs {b.sharding}"
                )
    return {"reference": reference, "compared": "structure, bitwise values and sharding of every leaf",
            "values": len(ref_leaves), "max_abs_difference": dict.fromkeys(trees, 0.0),
            "bitwise_equal": dict.fromkeys(trees, True)}


def call_signature(fn, args: tuple, leaves_out: int, static_argnums: tuple[int, ...] = ()) -> dict[str, Any]:
    """What one call of a jitted `fn` ran, its lowered StableHLO fingerprinted, for `require_distinct`."""
    import jax

    dynamic = tuple(a for i, a in enumerate(args) if i not in static_argnums)
    kind = type(fn)
    return {
        "callable": f"{kind.__module__}.{kind.__qualname__}",
        "static_argnums": list(static_argnums),
        "argument_tree": fingerprint(str(jax.tree_util.tree_structure(dynamic))),
        "leaves_in": len(jax.tree_util.tree_leaves(args)),
        "leaves_out": leaves_out,
        "program": fingerprint(fn.lower(*args).as_text()),
    }

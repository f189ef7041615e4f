"""A tensor-parallel plan (fnmatch patterns over module paths to transforms) and the write-up's two ways to apply it:
unbatched, one `eqx.tree_at` per match (a walk each), or batched, one for all."""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
from collections.abc import Callable, Iterator
from typing import Any

import equinox as eqx
import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "tp"


class TPLinear(eqx.Module):
    """A linear layer sharded by output (`out`) or input (`in`) features, with `eqx.nn.Linear`'s fields."""

    weight: jax.Array
    bias: jax.Array
    split: str = eqx.field(static=True)

    def specs(self) -> tuple[PartitionSpec, PartitionSpec]:
        """Partition specs of (weight, bias) over the `tp` mesh axis."""
        if self.split == "out":
            return PartitionSpec(AXIS, None), PartitionSpec(AXIS)
        return PartitionSpec(None, AXIS), PartitionSpec()


def shard_output(linear: eqx.nn.Linear) -> TPLinear:
    return TPLinear(linear.weight, linear.bias, split="out")


def shard_input(linear: eqx.nn.Linear) -> TPLinear:
    return TPLinear(linear.weight, linear.bias, split="in")


# Megatron-style BERT plan: column-parallel q/k/v and intermediate, row-parallel output projections.
BERT_PLAN: dict[str, Callable[[Any], eqx.Module]] = {
    "layers.*.attention.query": shard_output,
    "layers.*.attention.key": shard_output,
    "layers.*.attention.value": shard_output,
    "layers.*.intermediate": shard_output,
    "layers.*.attention.output": shard_input,
    "layers.*.output": shard_input,
}


class TreeAtCalls:
    """Counts `eqx.tree_at` calls made through it: each variant's proof of its code path."""

    def __init__(self) -> None:
        self.count = 0

    def tree_at(self, where, pytree, replace):
        self.count += 1
        return eqx.tree_at(where, pytree, replace)


Path = tuple[str | int, ...]


def iter_modules(node: Any, path: Path = ()) -> Iterator[tuple[Path, eqx.Module]]:
    """Every submodule with its path (field names and sequence indices), parents before children."""
    if isinstance(node, eqx.Module):
        yield path, node
        for field in dataclasses.fields(node):
            yield from iter_modules(getattr(node, field.name), (*path, field.name))
    elif isinstance(node, list | tuple):
        for i, child in enumerate(node):
            yield from iter_modules(child, (*path, i))


def path_matches(path: Path, pattern: str) -> bool:
    """fnmatch per dotted segment: `layers.*.output` matches `layers.3.output`, not `layers.3.attention.output`."""
    parts, segments = pattern.split("."), [str(p) for p in path]
    return len(parts) == len(segments) and all(map(fnmatch.fnmatchcase, segments, parts))


def getter(path: Path) -> Callable[[Any], Any]:
    def get(tree: Any) -> Any:
        return functools.reduce(lambda node, key: node[key] if isinstance(key, int) else getattr(node, key),
                                path, tree)

    return get


def find_matches(model: eqx.Module, plan: dict[str, Callable]) -> list[tuple[Path, eqx.Module]]:
    """(path, replacement) of every submodule some pattern matches, shortest path first."""
    matches = [(path, transform(module))
               for pattern, transform in plan.items()
               for path, module in iter_modules(model) if path_matches(path, pattern)]
    return sorted(matches, key=lambda match: len(match[0]))


def apply_unbatched(model: eqx.Module, plan: dict[str, Callable], calls: TreeAtCalls) -> eqx.Module:
    for path, replacement in find_matches(model, plan):
        model = calls.tree_at(getter(path), model, replacement)
    return model


def apply_batched(model: eqx.Module, plan: dict[str, Callable], calls: TreeAtCalls) -> eqx.Module:
    matches = find_matches(model, plan)
    if not matches:
        return model
    getters = [getter(path) for path, _ in matches]
    return calls.tree_at(lambda m: [get(m) for get in getters], model, [r for _, r in matches])


APPLY = {"unbatched": apply_unbatched, "batched": apply_batched}


def shardings(model: eqx.Module, mesh: Mesh) -> Any:
    """A sharding for every array leaf: TPLinear's by its split, everything else replicated."""

    def of(node: Any) -> Any:
        if isinstance(node, TPLinear):
            weight, bias = (NamedSharding(mesh, spec) for spec in node.specs())
            return dataclasses.replace(node, weight=weight, bias=bias)
        return NamedSharding(mesh, PartitionSpec()) if eqx.is_array(node) else None

    return jax.tree_util.tree_map(of, model, is_leaf=lambda node: isinstance(node, TPLinear))


def start_up(model: eqx.Module, plan: dict[str, Callable], mesh: Mesh, optimizer, apply: Callable,
             calls: TreeAtCalls) -> Iterator[tuple[str, Any]]:
    """The write-up's start-up, yielding (name, result) per step so a caller can time each."""
    model = apply(model, plan, calls)
    yield "apply", model
    specs = shardings(model, mesh)
    yield "partition_spec", specs
    model = eqx.filter_shard(model, specs)
    yield "filter_shard", model
    yield "optimizer", (model, optimizer.init(eqx.filter(model, eqx.is_array)))


def make_module_opt(model: eqx.Module, plan: dict[str, Callable], mesh: Mesh, optimizer, apply: Callable,
                    calls: TreeAtCalls) -> tuple[eqx.Module, Any]:
    """The write-up's start-up, every step: the sharded model and its optimizer state."""
    *_, (_, made) = start_up(model, plan, mesh, optimizer, apply, calls)
    return made

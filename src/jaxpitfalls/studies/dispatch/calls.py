"""Modes of jitted calls on fixed arguments (`infer`, `flatten`): compiled once, checked, then timed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ...harness.compiles import first_calls
from ...harness.protocol import Timed, measure_mode
from ...harness.sampling import Sampling
from ...harness.stats import is_twin
from ...harness.timing import Sampler, timed
from ...harness.variants import call_signature, require_agree, require_distinct


def program_named(name: str):
    """Names a jitted callable, so identical programs share the persistent compilation cache."""

    def named(fn):
        fn.__name__ = fn.__qualname__ = name
        return fn

    return named


@dataclass
class WaitedCall:
    """A mode's variant: a jitted function on fixed arguments, nothing carried between calls."""

    fn: Any
    args: tuple

    def __call__(self) -> jax.Array:
        return jax.block_until_ready(self.fn(*self.args))

    def sampler(self) -> Sampler:
        """One waited-for call per sample."""
        return lambda: timed(self)

    def signature(self) -> dict[str, Any]:
        return call_signature(self.fn, self.args, leaves_out=1)


def measure_calls(calls: dict[str, WaitedCall], mode: str, floor: str, sampling: Sampling, label: str,
                  checks_as: str, outputs: str) -> dict[str, Any]:
    """Compile each call once, check outputs against `floor`'s and signatures apart, then time."""
    firsts = first_calls(calls)
    agreement = require_agree({name: np.asarray(out) for name, (out, _) in firsts.items()}, floor,
                              exact=jax.default_backend() == "cpu")
    signatures = {name: c.signature() for name, c in calls.items()}
    distinct = require_distinct(signatures)
    measured = measure_mode({name: c.sampler() for name, c in calls.items()}, mode, floor, sampling, label)
    return {"mode": mode, "timed": measured, "compiles": {name: n for name, (_, n) in firsts.items()},
            "signatures": signatures,
            "checks": {f"{checks_as}_outputs_agree": agreement | {"outputs": outputs},
                       f"{checks_as}_signatures_distinct": distinct}}


def add_mode(modes: dict[str, Timed], variants: dict[str, dict[str, Any]], checks: dict[str, Any],
             measured: dict[str, Any]) -> None:
    """Merges a `measure_calls` result into the training modes' records."""
    mode = measured["mode"]
    modes[mode] = measured["timed"]
    for name in measured["timed"].entries:
        if is_twin(name):  # recorded as its floor is (protocol.result_document)
            continue
        variants[name]["signature"][mode] = measured["signatures"][name]
        variants[name]["compiles_in_warmup"] += measured["compiles"][name]
    checks |= measured["checks"]

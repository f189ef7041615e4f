"""The measurement every study follows: warm up, time variants interleaved in both dispatch modes,
guard against compilation in the timed region, and compare each variant with the floor pair by pair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from . import memory, stats
from .compiles import count_compiles, require_no_compiles
from .timing import interleaved, timed

MODES = ("blocked", "pipelined")


@dataclass
class Runner:
    """One variant, ready to step: `step()` advances its own state and returns an array to block on.

    `step` must count its calls in `calls`; `signature()` describes the code path that actually ran.
    """

    name: str
    step: Callable[[], Any]
    signature: Callable[[], dict[str, Any]]
    calls: list[int] = field(default_factory=lambda: [0])


def _blocked(runner: Runner, steps: int) -> Callable[[], float]:
    """N steps, each waited for: seconds per step (averaging N steps damps the OS's jitter)."""

    def run() -> None:
        for _ in range(steps):
            jax.block_until_ready(runner.step())

    return lambda: timed(run) / steps


def _pipelined(runner: Runner, steps: int) -> Callable[[], float]:
    """N steps dispatched back to back, one wait at the end (steps chain through state): seconds per step."""

    def run() -> None:
        out = None
        for _ in range(steps):
            out = runner.step()
        jax.block_until_ready(out)

    return lambda: timed(run) / steps


def warm_up(
    runners: dict[str, Runner], steps: int, steps_per_sample: int
) -> tuple[dict[str, int], dict[str, np.ndarray]]:
    """Run every variant in both modes with the timed shapes, from the same starting state.

    Returns the compilations each variant triggered and the outputs of its first `steps` blocked steps
    (its trajectory, which the study compares across variants).
    """
    compiles, outputs = {}, {}
    for name, runner in runners.items():
        with count_compiles() as counter:
            outputs[name] = np.array([np.asarray(jax.block_until_ready(runner.step())) for _ in range(steps)])
            _pipelined(runner, steps_per_sample)()
        compiles[name] = counter.count
    return compiles, outputs


def measure(
    runners: dict[str, Runner],
    floor: str,
    repeats: int,
    steps_per_sample: int,
    label: str,
    extra_pairs: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    """Time every variant in both modes against `floor` (and `extra_pairs`); raise if any timed region
    compiled.

    Peak memory is per mode, not per variant: the variants run interleaved in one process.
    """
    variants: dict[str, dict[str, Any]] = {name: {"modes": {}} for name in runners}
    comparisons = []
    peaks = {}
    for mode in MODES:
        samplers = {
            name: (_blocked if mode == "blocked" else _pipelined)(r, steps_per_sample)
            for name, r in runners.items()
        }
        memory.reset_host_peak()
        samples, compiles = interleaved(samplers, repeats, f"{label} {mode}")
        require_no_compiles(compiles, f"{label} ({mode})")
        for name, xs in samples.items():
            variants[name]["modes"][mode] = {
                "samples_s": xs,
                "summary": stats.summarize(xs),
                "compiles_in_timed_region": compiles[name],
            }
        pairs = [(name, floor) for name in runners if name != floor] + list(extra_pairs)
        for name, baseline in pairs:
            comparisons.append(
                {"variant": name, "baseline": baseline, "mode": mode}
                | stats.paired_comparison(samples[name], samples[baseline])
            )
        peaks[mode] = memory.peak_memory()
    return {"variants": variants, "comparisons": comparisons, "memory": peaks}

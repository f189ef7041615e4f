"""The measurement every study follows: warm up, time variants interleaved (per mode), guard against
compilation in the timed region, and compare each variant with the floor pair by pair.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from . import memory, stats
from .compiles import count_compiles, require_compiled, require_no_compiles
from .timing import Sampler, interleaved, timed

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


def measure_mode(
    samplers: dict[str, Sampler],
    mode: str,
    floor: str,
    repeats: int,
    label: str,
    extra_pairs: tuple[tuple[str, str], ...] = (),
    budget_s: float | None = None,
    compiles: str = "forbidden",
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, int | None]]:
    """Time every variant's sampler interleaved and compare each with `floor` (and `extra_pairs`).

    `compiles` says what compilation in the timed region means: `forbidden` (the default) fails the job;
    `required` labels a mode that measures compilation on purpose (a first run): every sample must have
    compiled, none from the persistent cache; `recorded` labels a deliberate demonstration of a pitfall:
    compilations are counted and kept, not judged. Returns per-variant entries, the comparisons, and the
    mode's peak memory (per mode, not per variant: the variants run interleaved in one process).
    """
    memory.reset_host_peak()
    samples, counts = interleaved(samplers, repeats, f"{label} {mode}", budget_s)
    where = f"{label} ({mode})"
    if compiles == "required":
        require_compiled(counts, where)
    elif compiles == "forbidden":
        require_no_compiles({name: sum(c.count for c in cs) for name, cs in counts.items()}, where)
    elif compiles != "recorded":
        raise ValueError(f"compiles={compiles!r}: expected forbidden, required or recorded")
    label_of = {"required": {"measures_compilation": True}, "recorded": {"demonstration": True}}
    entries = {
        name: {
            "samples_s": xs,
            "summary": stats.summarize(xs),
            "compiles_in_timed_region": sum(c.count for c in counts[name]),
        } | ({"compile_seconds": [c.seconds for c in counts[name]]} | label_of[compiles]
             if compiles in label_of else {})
        for name, xs in samples.items()
    }
    pairs = [(name, floor) for name in samplers if name != floor] + list(extra_pairs)
    comparisons = [
        {"variant": name, "baseline": baseline, "mode": mode}
        | stats.paired_comparison(samples[name], samples[baseline])
        for name, baseline in pairs
    ]
    return entries, comparisons, memory.peak_memory()


def measure(
    runners: dict[str, Runner],
    floor: str,
    repeats: int,
    steps_per_sample: int,
    label: str,
    extra_pairs: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    """Time every variant in both dispatch modes against `floor` (and `extra_pairs`)."""
    variants: dict[str, dict[str, Any]] = {name: {"modes": {}} for name in runners}
    comparisons, peaks = [], {}
    for mode in MODES:
        sampler = _blocked if mode == "blocked" else _pipelined
        samplers = {name: sampler(r, steps_per_sample) for name, r in runners.items()}
        entries, compared, peaks[mode] = measure_mode(samplers, mode, floor, repeats, label, extra_pairs)
        for name, entry in entries.items():
            variants[name]["modes"][mode] = entry
        comparisons += compared
    return {"variants": variants, "comparisons": comparisons, "memory": peaks}

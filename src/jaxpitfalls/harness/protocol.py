"""The measurement every study follows: warm up, time variants interleaved per mode with no compilation in
the timed region, compare each with the floor pair by pair."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from . import memory, stats
from .compiles import (
    SPANS,
    CompileCount,
    NotRecompiling,
    count_compiles,
    first_calls,
    require_compiled,
    require_no_compiles,
)
from .sampling import Sampling
from .timing import Sampler, gc_paused, interleaved, timed

MODES = ("blocked", "pipelined")


@dataclass
class Runner:
    """One variant, ready to step: `step()` advances its state and returns an array to block on.

    `step` must count its calls in `calls`; `signature()` describes the code path that actually ran.
    """

    name: str
    step: Callable[[], Any]
    signature: Callable[[], dict[str, Any]]
    calls: list[int] = field(default_factory=lambda: [0])


@dataclass(frozen=True)
class Timed:
    """One mode's timing."""

    entries: dict[str, dict[str, Any]]
    comparisons: list[dict[str, Any]]
    memory: dict[str, int | None]
    machine: dict[str, Any]


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


def mode_samplers(runners: dict[str, Runner], steps_per_sample: int) -> dict[str, dict[str, Sampler]]:
    """Every variant's sampler per dispatch mode."""
    return {mode: {name: (_blocked if mode == "blocked" else _pipelined)(r, steps_per_sample)
                   for name, r in runners.items()} for mode in MODES}


def warm_up(
    runners: dict[str, Runner], steps: int, steps_per_sample: int
) -> tuple[dict[str, int], dict[str, np.ndarray]]:
    """Run every variant in both modes with the timed shapes, from one starting state: each one's
    compilations and outputs of its first `steps` blocked steps; first calls run side by side."""
    firsts = first_calls({name: r.step for name, r in runners.items()})
    compiles, outputs = {}, {}
    for name, runner in runners.items():
        first, first_compiles = firsts[name]
        with count_compiles() as counter:
            rest = [np.asarray(jax.block_until_ready(runner.step())) for _ in range(steps - 1)]
            _pipelined(runner, steps_per_sample)()
        compiles[name] = first_compiles + counter.count
        outputs[name] = np.array([np.asarray(first), *rest])
    return compiles, outputs


class Repeated:
    """A sampler called `n` times per sample, averaged, so samples last `measure.min_sample_s` and
    jitter does not dominate; `setup()` runs once per sample, untimed."""

    def __init__(self, sampler: Sampler, n: int) -> None:
        self.sampler, self.n = sampler, n
        if hasattr(sampler, "setup"):
            self.setup = sampler.setup

    def __call__(self) -> float:
        return sum(self.sampler() for _ in range(self.n)) / self.n

    def once(self) -> float:
        """One call: a round's untimed primer."""
        return self.sampler()


MAX_CALLS_PER_SAMPLE = 10_000

# A call already known to last this many times `min_sample_s` (e.g. a whole pass timed before, its compilation
# taken out) needs no calibrating call: one call per sample. The known time may still hold tracing or a first
# allocation, so it overstates a warm call; only far above the target can that not leave a sample too short.
KNOWN_CALL_MARGIN = 20

CALIBRATING_CALLS = 3  # a short call's timings before its fastest is taken: a slow first makes samples too short
CALLS_TIMED_IN_A_BATCH = 100  # calls per sample beyond which a call alone is timed short of how a sample runs it


def _calls_for(seconds: float, min_sample_s: float) -> int:
    """Calls a sample needs to last `min_sample_s`, a call lasting `seconds` (at least 1, at most the cap)."""
    return min(MAX_CALLS_PER_SAMPLE, max(1, math.ceil(min_sample_s / max(seconds, 1e-9))))


def _fastest_call(sampler: Sampler, min_sample_s: float) -> float:
    """A short call's fastest of up to CALIBRATING_CALLS timings (a slow first would make samples too short); past
    CALLS_TIMED_IN_A_BATCH a sample's worth timed as one, since a microsecond call alone costs more than in a loop."""
    seconds = timed(sampler)
    for _ in range(CALIBRATING_CALLS - 1):
        if seconds >= min_sample_s:
            break
        seconds = min(seconds, timed(sampler))
    calls = _calls_for(seconds, min_sample_s)
    return seconds if calls <= CALLS_TIMED_IN_A_BATCH else timed(Repeated(sampler, calls)) / calls


def calibrate(samplers: dict[str, Sampler], min_sample_s: float, where: str,
              known_s: Mapping[str, float] | None = None, recompiling: Collection[str] = ()
              ) -> tuple[dict[str, Sampler], dict[str, int], dict[str, float]]:
    """Calls per sample so each lasts `min_sample_s` (as pyperf), and each sample's length: equally long samples
    pair best. Compiling here fails the job, but in `recompiling`. `known_s`: a call's seconds measured before,
    not rerun past KNOWN_CALL_MARGIN x `min_sample_s`."""
    if min_sample_s <= 0:
        return samplers, dict.fromkeys(samplers, 1), dict.fromkeys(samplers, 0.0)
    known = {name: t for name, t in (known_s or {}).items() if t >= KNOWN_CALL_MARGIN * min_sample_s}
    seconds, compiled = dict(known), {}
    with gc_paused():
        for name, sampler in samplers.items():
            if name not in known:
                with count_compiles() as counter:
                    seconds[name] = _fastest_call(sampler, min_sample_s)
                compiled[f"{name} calibrating"] = 0 if name in recompiling else counter.count
    require_no_compiles(compiled, where)
    counts = {name: _calls_for(t, min_sample_s) for name, t in seconds.items()}
    return ({name: Repeated(s, counts[name]) if counts[name] > 1 else s for name, s in samplers.items()}, counts,
            {name: seconds[name] * counts[name] for name in samplers})


def _with_twin(floor: str, samplers: dict[str, Sampler], calls: dict[str, int], seconds: dict[str, float]
               ) -> tuple[dict[str, Sampler], dict[str, int], dict[str, float]]:
    """A calibrated mode with the floor's A/A twin beside it."""
    if floor not in samplers:
        return samplers, calls, seconds
    twin = stats.twin_side(floor)
    return samplers | {twin: samplers[floor]}, calls | {twin: calls[floor]}, seconds | {twin: seconds[floor]}


# A call compiling now and then has no per-call cost to time, and how to price it instead.
NOW_AND_THEN = ("A call compiling now and then (a shape bucket crossed, a few static values in turn) has no per-call "
                "cost to time, its median misses the compiles: price it whole, one call running the whole workload "
                "from cleared caches (FIRST_RUN = True).")
# What a recompiling variant's sample with fewer compiles than calls failed to measure.
RECOMPILING = f"a call that compiles every time, as its variant is declared to (RECOMPILES). {NOW_AND_THEN}"
_LABELS = {"required": {"measures_compilation": True}, "recorded": {"demonstration": True}}


def _entries(samples: dict[str, list[float]], counts: dict[str, list[CompileCount]], contended: dict[str, list[bool]],
             calls_per_sample: dict[str, int], compiles: str, recompiling: Collection[str], where: str,
             steps: int) -> dict[str, dict[str, Any]]:
    """Each sampler's entry, once the mode's rule on compiling held; compiling on purpose: per call, labelled."""
    if compiles == "required":
        require_compiled(counts, where)
    elif compiles == "forbidden":
        require_no_compiles({name: sum(c.count for c in cs) for name, cs in counts.items()
                             if name not in recompiling}, where)
        require_compiled({name: counts[name] for name in recompiling}, where, RECOMPILING,
                         {name: calls_per_sample[name] * steps for name in recompiling}, NotRecompiling)

    def label(name: str) -> dict[str, bool] | None:
        return _LABELS["recorded"] | {"recompiles": True} if name in recompiling else _LABELS.get(compiles)

    return {
        name: {
            "samples_s": xs,
            "summary": stats.summarize(xs),
            "compiles_in_timed_region": sum(c.count for c in counts[name]),
            "contended": contended[name],
            "calls_per_sample": calls_per_sample[name],
        } | ({key: [c.stage_seconds(stage) / (calls_per_sample[name] * steps) for c in counts[name]]
              for stage, key in stats.STAGE_SECONDS.items() if stage == "compile" or SPANS} | label(name)
             if label(name) else {})
        for name, xs in samples.items()
    }


def measure_mode(
    samplers: dict[str, Sampler],
    mode: str,
    floor: str,
    sampling: Sampling,
    label: str,
    extra_pairs: tuple[tuple[str, str], ...] = (),
    compiles: str = "forbidden",
    beside: Collection[str] = (),
    known_s: Mapping[str, float] | None = None,
    recompiling: Collection[str] = (),
    steps: int = 1,
) -> Timed:
    """Time every sampler interleaved and compare each with `floor` (and `extra_pairs`); `beside`: another
    model's or setting's samplers, in the same rounds; `steps`: a sample's steps per call. `compiles`: `forbidden`
    fails on compilation (the only modes calibrated, primed and given an A/A twin) but in `recompiling`, whose
    every sample must; `required` (a first run) needs every sample to compile, none cached; `recorded` (a
    pitfall's demonstration) keeps them."""
    if compiles not in ("forbidden", "required", "recorded"):
        raise ValueError(f"compiles={compiles!r}: expected forbidden, required or recorded")
    if floor in recompiling or (recompiling and compiles != "forbidden"):
        raise ValueError(f"recompiling={sorted(recompiling)}: not the floor, and in a forbidden mode only")
    where = f"{label} ({mode})"
    calls_per_sample, sample_s = dict.fromkeys(samplers, 1), None
    if compiles == "forbidden":
        samplers, calls_per_sample, sample_s = _with_twin(floor, *calibrate(samplers, sampling.min_sample_s, where,
                                                                            known_s, recompiling))
    pairs = [(name, floor) for name in samplers if name not in (floor, *beside)] + list(extra_pairs)
    untimed = sorted({v for pair in pairs for side in pair for v in stats.side_parts(side)} - set(samplers))
    if untimed:  # before anything is timed: a comparison with a variant the job left out cannot be made
        raise ValueError(f"{where}: a pair compares {untimed}, not among the variants timed ({sorted(samplers)})")
    memory.reset_host_peak()
    samples, counts, contended, machine = interleaved(samplers, sampling, f"{label} {mode}", primed=sample_s)
    entries = _entries(samples, counts, contended, calls_per_sample, compiles, recompiling, where, steps)
    comparisons = [
        {"variant": name, "baseline": baseline, "mode": mode}
        | stats.paired_comparison(stats.side_samples(samples, name), stats.side_samples(samples, baseline),
                                  of_medians=stats.is_difference(name, baseline))
        for name, baseline in pairs
    ]
    return Timed(entries, comparisons, memory.peak_memory(), machine)


def measure(
    runners: dict[str, Runner],
    floor: str,
    sampling: Sampling,
    steps_per_sample: int,
    label: str,
    extra_pairs: tuple[tuple[str, str], ...] = (),
    beside: Mapping[str, Runner] | None = None,
    blocked_pairs: tuple[tuple[str, str], ...] = (),
    recompiling: Collection[str] = (),
) -> dict[str, Timed]:
    """`measure_mode` for both dispatch modes; `beside` runners and `blocked_pairs` in blocked mode only."""
    beside = beside or {}
    samplers = mode_samplers(runners, steps_per_sample)
    samplers["blocked"] |= mode_samplers(beside, steps_per_sample)["blocked"]
    return {mode: measure_mode(mode_timed, mode, floor, sampling, label,
                               extra_pairs + (blocked_pairs if mode == "blocked" else ()), beside=tuple(beside),
                               recompiling=recompiling, steps=steps_per_sample)
            for mode, mode_timed in samplers.items()}


def result_document(floor: str, modes: Mapping[str, Timed], variants: Mapping[str, dict[str, Any]],
                    checks: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The result every study's `run` returns, from its modes' timings, `variants`' records, the checks held
    and `more`; the A/A twin marked `twin_of`."""
    twins = {name for t in modes.values() for name in t.entries if stats.is_twin(name)}
    of = {twin: twin.removesuffix(stats.TWIN) for twin in sorted(twins)}  # a mode's own floor (dispatch's calls)
    records = dict(variants) | {twin: variants[base] | {"twin_of": base} for twin, base in of.items()}
    return {
        "floor": floor,
        "variants": {name: {"modes": {mode: t.entries[name] for mode, t in modes.items() if name in t.entries}}
                     | record for name, record in records.items()},
        "comparisons": [c for t in modes.values() for c in t.comparisons],
        "memory": {mode: t.memory for mode, t in modes.items()},
        "machine": {mode: t.machine for mode, t in modes.items()},
        "checks": checks,
    } | more

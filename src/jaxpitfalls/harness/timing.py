"""Interleaved timing: variants take turns, so a drifting machine affects all of them alike; each window of
rounds is watched for other processes and steal, so a busy neighbour is waited out and re-timed, refused or
marked, never silently accepted."""

from __future__ import annotations

import gc
import logging
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .compiles import CompileCount, count_compiles
from .contention import Contention
from .machine import REAL, Activity, Reading, Watch, cpu_mhz, load_average, machine_summary
from .sampling import MIN_ROUNDS, Sampling

log = logging.getLogger(__name__)

Sampler = Callable[[], float]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Garbage collection off inside a timed region (as timeit and pyperf do): a collection that happens to
    fall into one sample is not the variant's cost."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of `fn` takes; `fn` must block on its outputs itself."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# The kernel counts CPU time in ticks (10 ms) and a cloud VM's hypervisor steals in bursts of a few tenths of a
# second: rounds are judged together over windows at least this long (a shorter last window is judged over the
# rounds before it too), so that neither a stray tick nor a burst shorter than a window makes rounds look busy.
WINDOW_S = 2.0


def _window_record(activity: Activity, rounds: int, contended: bool, kept: bool) -> dict[str, Any]:
    return {"wall_s": activity.wall_s, "own_cpu_s": activity.own_cpu_s, "others_share": activity.others_share,
            "steal_share": activity.steal_share, "rounds": rounds, "contended": contended, "kept": kept}


def _judged_from(readings: list[Reading], window_start: Reading, now: Reading) -> Reading:
    """Where a window's activity is measured from: its start, or for a window shorter than `WINDOW_S` (the
    last of a mode) the latest round boundary at least `WINDOW_S` before `now` (the earliest there is)."""
    if now.wall - window_start.wall >= WINDOW_S:
        return window_start
    return next((r for r in reversed(readings) if now.wall - r.wall >= WINDOW_S), readings[0])


def _progress(label: str, done: int, rounds: int, elapsed: float, policy: Contention, last: bool) -> None:
    """A line in the job's log every fifth of the mode's rounds, and at its last."""
    if done % max(1, rounds // 5) == 0 or done == rounds or last:
        log.info("%s: round %d/%d (%.1f s, %d window(s) re-timed, %.0f s waited)", label, done, rounds, elapsed,
                 policy.retimed, policy.waited_s)


# One round: every variant's (seconds, compilations) and the yardstick taken after them.
Round = tuple[dict[str, tuple[float, CompileCount]], float]


def _set_up(sampler: Sampler) -> None:
    """The sampler's `setup()`, where it has one: untimed and uncounted (e.g. a deliberately short warmup)."""
    setup = getattr(sampler, "setup", None)
    if setup is not None:
        setup()


def _prime(sampler: Sampler) -> None:
    """One untimed call of `sampler` (`once()`, one call of what its sample repeats, where it has one): the
    variant timed first after the yardstick ran ~10 ms slower on a ~30 ms step than in any other place
    (filter_jit 46.2 ms first in forward rounds, 37.3 ms in reversed ones, while the variants never first moved
    0.5 ms; docs/decisions.md#primer), so every round opens with a call nobody times."""
    _set_up(sampler)
    with gc_paused():
        getattr(sampler, "once", sampler)()


# A sample at least this long is not primed: ~10 ms is within its noise, and its primer would cost a whole pass.
PRIME_BELOW_S = 1.0


def _round(samplers: dict[str, Sampler], order: list[str], watch: Watch, last: dict[str, float] | None) -> Round:
    """Every sampler once in `order` (a `setup()` first where it has one, untimed and uncounted: e.g. a
    deliberately short warmup), each sample's compilations counted; then the machine's speed. `last`, where
    rounds are primed: each sampler's latest sample, updated here; the first one's primer (`_prime`) runs unless
    its latest sample lasted PRIME_BELOW_S or longer."""
    taken: dict[str, tuple[float, CompileCount]] = {}
    if last is not None and last.get(order[0], 0.0) < PRIME_BELOW_S:
        _prime(samplers[order[0]])
    for name in order:
        _set_up(samplers[name])
        with count_compiles() as counter, gc_paused():
            seconds = samplers[name]()
        taken[name] = (seconds, counter)
    if last is not None:
        last.update({name: seconds for name, (seconds, _) in taken.items()})
    with gc_paused():
        return taken, watch.speed()


def round_order(names: list[str], index: int) -> list[str]:
    """Round `index`'s order: the variants turned by one place a round, reversed every other `len(names)`
    rounds. Over 2 x len(names) rounds each variant opens two rounds and every pair is timed both ways round, so
    what a place costs falls on every variant alike: the first place still paid 2-3 ms per ~30 ms step after its
    primer, and plain forward/reversed alternation gave it only to the two ends.
    A mode rarely keeps a whole number of cycles, so `interleaved` starts each at a random place: the extra
    openings past the last whole cycle go to different variants in each process and job, not always to the
    first ones listed (12 openings against 9 in dispatch's base job; docs/decisions.md#rotating-order)."""
    turn = index % len(names)
    turned = names[turn:] + names[:turn]
    return turned if (index // len(names)) % 2 == 0 else turned[::-1]


class _Kept:
    """The rounds a mode keeps: per variant its samples, their compilations, contended marks and places in
    their rounds (0: first), in order, and the yardstick of each round."""

    def __init__(self, names: list[str]) -> None:
        self.samples: dict[str, list[float]] = {name: [] for name in names}
        self.compiles: dict[str, list[CompileCount]] = {name: [] for name in names}
        self.marked: dict[str, list[bool]] = {name: [] for name in names}
        self.places: dict[str, list[int]] = {name: [] for name in names}
        self.speeds: list[float] = []

    def add(self, rounds: list[Round], contended: bool) -> None:
        for taken, speed in rounds:
            for place, (name, (seconds, counter)) in enumerate(taken.items()):
                self.samples[name].append(seconds)
                self.compiles[name].append(counter)
                self.marked[name].append(contended)
                self.places[name].append(place)
            self.speeds.append(speed)


def interleaved(
    samplers: dict[str, Sampler],
    sampling: Sampling,
    label: str = "",
    min_rounds: int = MIN_ROUNDS,
    watch: Watch = REAL,
    primed: Mapping[str, float] | None = None,
    first_round: int | None = None,
) -> tuple[dict[str, list[float]], dict[str, list[CompileCount]], dict[str, list[bool]], dict[str, Any]]:
    """Run every sampler up to `sampling.rounds` rounds in turn (`round_order`, from `first_round` or a random
    place in its cycle); each round ends with the yardstick (`_round`) and opens with an untimed call of its
    first sampler where `primed` (each sample's length known beforehand, a calibration's; {} for none) and its
    sample is short (measure_mode primes the modes that compile nothing). With a budget, no new round starts
    once the rounds so far took that long and `min_rounds` are kept: samples that cost seconds each stay
    affordable, cheap ones get every round. The machine is watched (`watch`) over windows of rounds at least
    `WINDOW_S` long; what a contended window means is `contention.Contention`'s to say (re-timed after a wait
    for quiet, refused, or kept and marked). Returns the raw samples per variant, their compilations,
    whether each was taken in a contended window, and the mode's machine record (with places)."""
    names, last = list(samplers), None if primed is None else dict(primed)
    offset = random.randrange(2 * len(names)) if first_round is None else first_round
    kept = _Kept(names)
    windows: list[dict[str, Any]] = []
    pending: list[Round] = []
    policy = Contention(sampling, label, watch)
    loads, clocks = [load_average()], [cpu_mhz()]
    readings = [watch.now()]  # round boundaries since the mode started or last waited; the window starts at [-k]
    start = window_start = readings[0]
    while len(kept.samples[names[0]]) < sampling.rounds:
        done_before = len(kept.samples[names[0]]) + len(pending)
        pending.append(_round(samplers, round_order(names, offset + done_before), watch, last))
        now = watch.now()
        readings.append(now)
        done = done_before + 1
        elapsed = now.wall - start.wall - policy.spent_s  # re-timed windows and waits spend none of the budget
        out_of_budget = sampling.budget_s is not None and done >= min_rounds and elapsed >= sampling.budget_s
        if now.wall - window_start.wall < WINDOW_S and done < sampling.rounds and not out_of_budget:
            continue
        activity = watch.between(_judged_from(readings, window_start, now), now)
        contended = activity.contended(sampling.max_busy_share)
        keep = policy.keep(activity)
        windows.append(_window_record(activity, len(pending), contended, keep))
        if keep:
            kept.add(pending, contended)
            _progress(label, done, sampling.rounds, elapsed, policy, out_of_budget)
            if out_of_budget:
                break
        else:
            readings = [watch.now()]  # after a wait: judge nothing across it
        pending = []
        window_start = readings[-1]
    settings = {"on_contention": sampling.on_contention, "max_busy_share": sampling.max_busy_share,
                "max_wait_s": sampling.max_wait_s}
    return kept.samples, kept.compiles, kept.marked, machine_summary(
        windows, settings, [*loads, load_average()], [*clocks, cpu_mhz()], policy.records(), kept.speeds,
        kept.places)

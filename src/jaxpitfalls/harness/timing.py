"""Interleaved timing: variants take turns, so drift hits all alike; windows of rounds are watched, so a busy
neighbour is waited out, refused or marked, never silently accepted."""

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
    """Garbage collection off (as pyperf): a collection is not the variant's cost."""
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
    """A window's start or, if shorter than `WINDOW_S`, the latest round boundary `WINDOW_S` before `now`."""
    if now.wall - window_start.wall >= WINDOW_S:
        return window_start
    return next((r for r in reversed(readings) if now.wall - r.wall >= WINDOW_S), readings[0])


def _progress(label: str, done: int, rounds: int, elapsed: float, policy: Contention, last: bool) -> None:
    if done % max(1, rounds // 5) == 0 or done == rounds or last:
        log.info("%s: round %d/%d (%.1f s, %d window(s) re-timed, %.0f s waited)", label, done, rounds, elapsed,
                 policy.retimed, policy.waited_s)


# One round: every variant's (seconds, compilations) and the yardstick taken after them.
Round = tuple[dict[str, tuple[float, CompileCount]], float]


def _set_up(sampler: Sampler) -> None:
    setup = getattr(sampler, "setup", None)
    if setup is not None:
        setup()


def _prime(sampler: Sampler) -> None:
    """An untimed call opening a round: the place after the yardstick runs slow (docs/decisions.md#primer)."""
    _set_up(sampler)
    with gc_paused():
        getattr(sampler, "once", sampler)()


# A sample at least this long is not primed: ~10 ms is within its noise, and its primer would cost a whole pass.
PRIME_BELOW_S = 1.0


def _round(samplers: dict[str, Sampler], order: list[str], watch: Watch, last: dict[str, float] | None,
           sampled: dict[str, float]) -> Round:
    """Every sampler once in `order` (untimed `setup()` first), then the yardstick. `last`: each sampler's
    latest sample; the primer runs unless the first one's reached PRIME_BELOW_S. `sampled`: each sampler's wall
    inside its calls, added to."""
    taken: dict[str, tuple[float, CompileCount]] = {}
    if last is not None and last.get(order[0], 0.0) < PRIME_BELOW_S:
        _prime(samplers[order[0]])
    for name in order:
        _set_up(samplers[name])
        start = watch.clock()
        with count_compiles() as counter, gc_paused():
            seconds = samplers[name]()
        sampled[name] += watch.clock() - start
        taken[name] = (seconds, counter)
    if last is not None:
        last.update({name: seconds for name, (seconds, _) in taken.items()})
    with gc_paused():
        return taken, watch.speed()


def williams(n: int) -> list[list[int]]:
    """Rows of a Williams design for `n` sides: each side first equally often and right before each other
    in one row (mirrored for odd n), so what one side leaves behind falls on every other alike."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:  # 0, 1, n-1, 2, n-2, ...
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(k + i) % n for k in first] for i in range(n)]
    return rows + [row[::-1] for row in rows] if n % 2 else rows


def round_order(names: list[str], index: int) -> list[str]:
    """Round `index`'s order: the Williams rows in turn, so each sampler opens as often and follows each other
    as often; `interleaved` starts at a random row (docs/decisions.md#rotating-order)."""
    rows = williams(len(names))
    return [names[k] for k in rows[index % len(rows)]]


class _Kept:
    """The rounds a mode keeps."""

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
    """Up to `sampling.rounds` rounds of every sampler (`round_order` from `first_round`, else at random), each
    closed by the yardstick and, where `primed` (calibrated sample lengths) and short, opened by an untimed call; a
    budget stops new rounds once `min_rounds` are kept. Windows of `WINDOW_S` are judged by `Contention`."""
    names, last = list(samplers), None if primed is None else dict(primed)
    offset = random.randrange(len(williams(len(names)))) if first_round is None else first_round
    kept = _Kept(names)
    windows: list[dict[str, Any]] = []
    pending: list[Round] = []
    policy = Contention(sampling, label, watch)
    loads, clocks = [load_average()], [cpu_mhz()]
    readings = [watch.now()]  # round boundaries since the mode started or last waited; the window starts at [-k]
    sampled, rounds_s = dict.fromkeys(names, 0.0), 0.0  # samplers' wall; whole rounds' (primers, setups, yardstick)
    start = window_start = readings[0]
    while len(kept.samples[names[0]]) < sampling.rounds:
        done_before = len(kept.samples[names[0]]) + len(pending)
        began = watch.clock()
        pending.append(_round(samplers, round_order(names, offset + done_before), watch, last, sampled))
        rounds_s += watch.clock() - began
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
        kept.places, (sampled, rounds_s))

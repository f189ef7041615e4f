"""Sides timed in lockstep: the same study configuration in two or more environments (an A/A pair, two
library releases, two XLA_FLAGS), each in its own warm worker process, asked in turn for short blocks of
samples so that the blocks paired across sides saw the same machine.

Timing two runs one after the other compares the machine's speed at two times as much as the code: on a
shared cloud VM a run compared with itself came out "regressed" 1.36-1.72x in some configurations and
"improved" 0.57-0.70x in others, minutes apart. Alternating short blocks each round (randomized multiple
interleaved trials, Abedi and Brecht, ICPE 2017; duet benchmarking, Bulej et al., ICPE 2020) cancels drift
slower than a round: each round's ratio is between blocks seconds apart. The order is counterbalanced (each
side first equally often for every variant) and recorded, so that an effect of going first cancels too and
the report can show it. One timing at a time (the other workers wait on their pipe), a fresh set of workers
per process (the process-level spread, as `measure.processes` has it). Every side's sample is the same
number of calls, the first side's calibration's (`calls_per_sample`): a per-sample cost (the timer, a
synchronisation) spread over different counts would differ between the sides by itself.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from .machine import REAL, Activity, Watch
from .workers import PipeWorker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the Python of its environment (a venv's, or this one's) and the variables
    set for it (XLA_FLAGS, ...)."""

    name: str
    python: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)


class Worker(Protocol):
    """A warm process of one side: `description` is what it said once ready (its modes and variants, its
    environment, its variants' signatures, its own calls per sample); `block` times `samples` samples of
    `calls` calls each of one variant in one mode and returns them (seconds per call), adding the CPU time it
    took to `cpu_s`."""

    description: dict[str, Any]  # with `calls_per_sample`: per mode and variant, its own calibration's count
    cpu_s: float  # CPU seconds its blocks used so far, all its threads (the rest of the machine's is others')

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]: ...

    def close(self) -> None: ...


class SidesDiffer(RuntimeError):
    """The sides' workers offer different modes or variants: their blocks cannot be paired."""


def in_lockstep(sides: Sequence[Side], start: Callable[[Side, int], Worker], processes: int, rounds: int,
                samples_per_block: int, seed: int = 0, watch: Watch = REAL, max_busy_share: float = 0.2,
                enough: Callable[[dict[str, Any]], bool] | None = None, most: int = 0) -> dict[str, Any]:
    """Time every side's variants in lockstep: per process, one warm worker per side (`start(side, process)`),
    then per mode `rounds` rounds; in a round, variant by variant (forward, then reversed order, alternately),
    every side times one block of that variant: the blocks paired across sides are a fraction of a second
    apart. The sides' order is a row of a Williams design, every row once per block of rounds of a variant in a
    random order (`_orders`): each side goes first, and follows each other side, equally often. What is left is
    each sample's own noise (on the 2-core VM, paired ~50 ms samples of a small BERT step differ by 10-15%, with
    blocks a second apart as with a tenth of a second), which only more rounds average out.

    The machine is watched round by round as a timing job watches its windows (`watch`: other processes'
    and the hypervisor's shares of the cores, the workers' own CPU taken out), and every round is kept: a
    neighbour slows the sides of a round alike, and the report counts the rounds above `max_busy_share`.

    Every worker calibrates its calls per sample; every block of every side and process is of the first
    side's first worker's count (`calls_per_sample`), one count shared as the rounds are.

    After `processes`, where `enough` is given, one more fresh set of workers at a time until `enough` of the
    result so far holds (every row precise enough) or `most` have timed it.

    Returns per process, side, mode and variant the median of each round's block (round i of every side
    paired), per process the sides' order in each round (`orders`) and per mode each round's machine
    (`machine`), the calls per sample, and every side's description from each process."""
    names = [s.name for s in sides]
    plan = _Plan(names, rounds, samples_per_block, watch, max_busy_share, np.random.default_rng(seed))
    timed: list[dict[str, Any]] = []
    orders: list[dict[str, dict[str, list[list[str]]]]] = []
    watched: list[dict[str, list[dict[str, Any]]]] = []
    described: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    calls: dict[str, dict[str, int]] = {}

    def result() -> dict[str, Any]:
        return {"sides": names, "rounds": rounds, "samples_per_block": samples_per_block, "calls_per_sample": calls,
                "processes": timed, "orders": orders, "machine": watched, "max_busy_share": max_busy_share,
                "descriptions": described}

    process = 0
    while process < processes or (enough is not None and process < most and not enough(result())):
        if process >= processes:
            log.info("lockstep: not every row precise enough after %d process(es): one more (at most %d)",
                     process, most)
        workers: dict[str, Worker] = {}
        try:
            for side in sides:
                workers[side.name] = start(side, process)
            for side in sides:  # every side ready before the first round
                described[side.name].append(workers[side.name].description)
            calls = calls or workers[names[0]].description["calls_per_sample"]
            rounds_of, order_of, machine_of = plan.time(
                workers, _common_modes({name: w.description for name, w in workers.items()}), calls,
                f"{process + 1}/{processes}" if process < processes else f"{process + 1} (at most {most})")
            timed.append(rounds_of)
            orders.append(order_of)
            watched.append(machine_of)
        finally:
            for worker in workers.values():
                worker.close()
        process += 1
    return result()


@dataclass(frozen=True)
class _Plan:
    """What every process of a lockstep job times alike: the sides' names, rounds per mode, samples per block,
    the machine's watch and its limit, and the random orders' generator."""

    names: list[str]
    rounds: int
    samples_per_block: int
    watch: Watch
    max_busy_share: float
    rng: np.random.Generator

    def time(self, workers: dict[str, Worker], modes: dict[str, list[str]], calls: dict[str, dict[str, int]],
             label: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[dict[str, Any]]]]:
        """One process's rounds with its warm `workers`: per side, mode and variant each round's block median,
        per mode and variant the sides' order in each round, and per mode each round's machine."""
        rounds_of = {name: {m: {v: [] for v in vs} for m, vs in modes.items()} for name in self.names}
        order_of = {m: {v: _orders(self.names, self.rounds, self.rng) for v in vs} for m, vs in modes.items()}
        machine_of: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
        for mode, variants in modes.items():
            for r in range(self.rounds):
                began, workers_cpu = self.watch.now(), sum(w.cpu_s for w in workers.values())
                _round(workers, mode, variants, r, order_of[mode], self.samples_per_block, calls[mode], rounds_of)
                machine_of[mode].append(round_window(self.watch.between(began, self.watch.now()),
                                                     sum(w.cpu_s for w in workers.values()) - workers_cpu,
                                                     self.max_busy_share))
                if (r + 1) % max(1, self.rounds // 5) == 0:
                    log.info("lockstep process %s, %s: round %d/%d", label, mode, r + 1, self.rounds)
        return rounds_of, order_of, machine_of


def _round(workers: dict[str, Worker], mode: str, variants: list[str], r: int, orders: dict[str, list[list[str]]],
           samples: int, calls: dict[str, int], into: dict[str, dict[str, dict[str, list[float]]]]) -> None:
    """Round `r` of a mode: variant by variant (forward, then reversed order, alternately), every side's block
    in the round's order, each block's median kept `into` its side's rounds."""
    for variant in variants if r % 2 == 0 else reversed(variants):
        for name in orders[variant][r]:
            xs = workers[name].block(mode, variant, samples, calls[variant])
            into[name][mode][variant].append(float(np.median(xs)))


def round_window(activity: Activity, workers_cpu_s: float, max_busy_share: float) -> dict[str, Any]:
    """One round's machine: other processes' share of the cores (the workers' own CPU taken out: they are this
    job's), the hypervisor's steal, and whether together they passed `max_busy_share` (Activity.contended)."""
    if activity.others_share is None:
        return {"wall_s": activity.wall_s, "others_share": None, "steal_share": None, "contended": False}
    others = max(0.0, activity.others_share - workers_cpu_s / (activity.wall_s * activity.cores))
    return {"wall_s": activity.wall_s, "others_share": others, "steal_share": activity.steal_share,
            "contended": replace(activity, others_share=others).contended(max_busy_share)}


def williams(n: int) -> list[list[int]]:
    """The rows of a Williams design for `n` sides (Williams 1949): each side first in as many rows as any other,
    and each side right before each other side in exactly one row (n even; two rows for n odd, the mirrored square
    added). Rotations of one list balance the first place only: with four sides, `a` runs before `a2` in 3 of
    every 4 rotations, so whatever one side leaves behind (a warm cache, a busy core) falls on the next."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:  # 0, 1, n-1, 2, n-2, ...
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(k + i) % n for k in first] for i in range(n)]
    return rows + [row[::-1] for row in rows] if n % 2 else rows


def _orders(names: list[str], rounds: int, rng: np.random.Generator) -> list[list[str]]:
    """The sides' order in each of `rounds` rounds: the rows of a Williams design (`williams`), each once per
    block of them in a random order (so each side goes first equally often and follows each other side equally
    often, and no period of the machine lines up with either)."""
    rows = williams(len(names))
    picks = np.concatenate([rng.permutation(len(rows)) for _ in range(-(-rounds // len(rows)))])[:rounds]
    return [[names[k] for k in rows[i]] for i in picks.tolist()]


def _common_modes(descriptions: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The modes and variants every side offers: the same, or no pairing is possible."""
    (first, modes), *others = ((name, d["modes"]) for name, d in descriptions.items())
    for name, theirs in others:
        if theirs != modes:
            raise SidesDiffer(f"side {name!r} offers {theirs}, side {first!r} {modes}")
    return modes


class ProcessWorker(PipeWorker):
    """A side's worker as a child process (the side's Python with `args`: the job hands down the worker it
    runs) speaking the workers' protocol (harness/workers.py); its log goes to the job's log. Started at once,
    waited for when its description is first read: the sides prepare (import JAX, load, warm up, calibrate)
    side by side, and none is timed before every side is ready."""

    def __init__(self, side: Side, args: list[str]) -> None:
        super().__init__(f"side {side.name!r}", side.python, side.env, args)
        self.cpu_s = 0.0

    @property
    def description(self) -> dict[str, Any]:
        return self.first

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        reply = self.ask({"mode": mode, "variant": variant, "samples": samples, "calls": calls})
        self.cpu_s += reply["cpu_s"]
        return reply["samples"]

"""One configuration timed in lockstep in two or more environments (A/A, two releases, two XLA_FLAGS), each in
a warm worker asked in turn for short blocks of samples: runs timed one after another compare the machine's drift
as much as the code, alternating blocks cancel drift slower than a round (Abedi and Brecht, ICPE 2017; Bulej et
al., ICPE 2020).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from .machine import REAL, Activity, Watch
from .timing import williams
from .workers import PipeWorker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Side:
    """One side: its environment's Python and the variables set for it (XLA_FLAGS, ...)."""

    name: str
    python: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)


class Worker(Protocol):
    """A warm process of one side: `description` (modes, variants, signatures); `calls_per_sample` calibrates
    now, per mode and variant; `block` returns seconds per call, adding its CPU time to `cpu_s`."""

    description: dict[str, Any]
    cpu_s: float  # CPU seconds its blocks used so far, all its threads (the rest of the machine's is others')

    def calls_per_sample(self) -> dict[str, dict[str, int]]: ...

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]: ...

    def close(self) -> None: ...


class SidesDiffer(RuntimeError):
    """The sides' workers offer different modes or variants: their blocks cannot be paired."""


def in_lockstep(sides: Sequence[Side], start: Callable[[Side, int], Worker], processes: int, rounds: int,
                samples_per_block: int, seed: int = 0, watch: Watch = REAL, max_busy_share: float = 0.2,
                enough: Callable[[dict[str, Any]], bool] | None = None, most: int = 0) -> dict[str, Any]:
    """Per process one warm worker per side, per mode `rounds` rounds of one block per variant and side in a
    Williams order, all with one count of calls per sample (_shared_calls) so a per-sample cost weighs alike.
    Every round is kept, its machine watched. Given `enough`, processes are added until it holds or `most` ran.

    Returns block medians by process, side, mode, variant and round, the orders, each round's machine, the calls
    per sample and the sides."""
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
            log.info("lockstep: rows not yet precise enough after %d process(es): one more (at most %d)",
                     process, most)
        workers: dict[str, Worker] = {}
        try:
            for side in sides:
                workers[side.name] = start(side, process)
            for side in sides:  # every side ready before the first round
                described[side.name].append(workers[side.name].description)
            modes = _common_modes({name: w.description for name, w in workers.items()})
            calls = calls or _shared_calls([workers[name] for name in names])
            rounds_of, order_of, machine_of = plan.time(
                workers, modes, calls,
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
    """What every process of a lockstep job times alike."""

    names: list[str]
    rounds: int
    samples_per_block: int
    watch: Watch
    max_busy_share: float
    rng: np.random.Generator

    def time(self, workers: dict[str, Worker], modes: dict[str, list[str]], calls: dict[str, dict[str, int]],
             label: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[dict[str, Any]]]]:
        """One process's rounds: block medians, the sides' orders, each round's machine."""
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
    """Round `r` of a mode: every variant's block per side in the round's order, medians kept `into`."""
    for variant in variants if r % 2 == 0 else reversed(variants):
        for name in orders[variant][r]:
            xs = workers[name].block(mode, variant, samples, calls[variant])
            into[name][mode][variant].append(float(np.median(xs)))


def round_window(activity: Activity, workers_cpu_s: float, max_busy_share: float) -> dict[str, Any]:
    """One round's machine, the workers' own CPU taken out; contended past `max_busy_share`."""
    if activity.others_share is None:
        return {"wall_s": activity.wall_s, "others_share": None, "steal_share": None, "contended": False}
    others = max(0.0, activity.others_share - workers_cpu_s / (activity.wall_s * activity.cores))
    return {"wall_s": activity.wall_s, "others_share": others, "steal_share": activity.steal_share,
            "contended": replace(activity, others_share=others).contended(max_busy_share)}


def _orders(names: list[str], rounds: int, rng: np.random.Generator) -> list[list[str]]:
    """The sides' order per round: Williams rows in random order per block, so no machine period lines up."""
    rows = williams(len(names))
    picks = np.concatenate([rng.permutation(len(rows)) for _ in range(-(-rounds // len(rows)))])[:rounds]
    return [[names[k] for k in rows[i]] for i in picks.tolist()]


def _shared_calls(workers: list[Worker]) -> dict[str, dict[str, int]]:
    """Calls per sample every side is asked for, each side's first worker calibrating in turn once all are ready
    (else one compiling starves another's count): the most any found, the fewest for a variant compiling in every
    call (RECOMPILES)."""
    counts = [w.calls_per_sample() for w in workers]
    recompiling = {v for w in workers for v in w.description.get("recompiling", ())}
    return {mode: {v: (min if v in recompiling else max)(c[mode][v] for c in counts) for v in by_variant}
            for mode, by_variant in counts[0].items()}


def _common_modes(descriptions: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The modes and variants every side offers: the same, or no pairing is possible."""
    (first, modes), *others = ((name, d["modes"]) for name, d in descriptions.items())
    for name, theirs in others:
        if theirs != modes:
            raise SidesDiffer(f"side {name!r} offers {theirs}, side {first!r} {modes}")
    return modes


class ProcessWorker(PipeWorker):
    """A side's worker process, started at once and awaited when first read, so the sides prepare side by
    side."""

    def __init__(self, side: Side, args: list[str]) -> None:
        super().__init__(f"side {side.name!r}", side.python, side.env, args)
        self.cpu_s = 0.0

    @property
    def description(self) -> dict[str, Any]:
        return self.first

    def calls_per_sample(self) -> dict[str, dict[str, int]]:
        return self.ask({"calibrate": True})["calls_per_sample"]

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        reply = self.ask({"mode": mode, "variant": variant, "samples": samples, "calls": calls})
        self.cpu_s += reply["cpu_s"]
        return reply["samples"]

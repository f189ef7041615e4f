"""Interleaved timing: variants take turns, so a drifting machine affects all of them alike; each round is
watched for other processes, so a busy neighbour is re-timed, refused or marked, never silently accepted."""

from __future__ import annotations

import dataclasses
import gc
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .compiles import CompileCount, count_compiles
from .machine import Activity, Reading, cpu_mhz, load_average, machine_summary

log = logging.getLogger(__name__)

Sampler = Callable[[], float]
ON_CONTENTION = ("retry", "fail", "warn")


@dataclass(frozen=True)
class Sampling:
    """How a mode is sampled (a study's `measure` settings): rounds, time budget, calibrated sample length,
    and what a round taken while the machine was busy means."""

    repeats: int
    budget_s: float | None = None
    min_sample_s: float = 0.0
    on_contention: str = "retry"
    max_busy_share: float = 0.2
    max_retries: int = 5

    def __post_init__(self) -> None:
        if self.on_contention not in ON_CONTENTION:
            raise ValueError(f"on_contention={self.on_contention!r}: expected one of {', '.join(ON_CONTENTION)}")

    @classmethod
    def of(cls, settings: dict[str, Any]) -> Sampling:
        return cls(**{f.name: settings[f.name] for f in dataclasses.fields(cls) if f.name in settings})


class MachineBusy(RuntimeError):
    """Other processes (or the hypervisor) used the machine while samples were timed, past the policy."""


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


# The kernel counts CPU time in ticks (10 ms): rounds are judged together over a window at least this long,
# so that a stray tick or two cannot make a short round look busy (2 ticks in 0.25 s of 2 cores: 4%).
WINDOW_S = 0.25


def _window_record(activity: Activity, rounds: int, contended: bool, kept: bool) -> dict[str, Any]:
    return {"wall_s": activity.wall_s, "own_cpu_s": activity.own_cpu_s, "others_share": activity.others_share,
            "steal_share": activity.steal_share, "rounds": rounds, "contended": contended, "kept": kept}


def _busy_message(label: str, activity: Activity, sampling: Sampling, retried: int) -> str:
    tried = f"after re-timing {retried} window(s) of rounds " if retried else ""
    return (f"{label}: the machine was busy {tried}while samples were timed: {activity.describe()}, more than "
            f"measure.max_busy_share={sampling.max_busy_share:g} of the cores. Timings taken beside a busy "
            "neighbour are not comparable. Rerun when the machine is quiet (`snakemake --cores all` reruns only "
            "what is missing; finished results are kept), raise measure.max_retries to wait longer, or set "
            "measure.on_contention: warn to keep the samples, marked as contended")


def interleaved(
    samplers: dict[str, Sampler],
    sampling: Sampling,
    label: str = "",
    min_repeats: int = 2,
) -> tuple[dict[str, list[float]], dict[str, list[CompileCount]], dict[str, list[bool]], dict[str, Any]]:
    """Run every sampler up to `sampling.repeats` rounds in turn (forward, then reversed order, alternately).

    With a budget, no new round starts once the rounds so far took that long and `min_repeats` are kept:
    samples that cost seconds each stay affordable, cheap ones get every round. A sampler with a `setup()`
    method has it called before each of its samples, outside the timer and the compile counter. The machine
    is watched over windows of rounds (`WINDOW_S`, `machine.Activity`); the rounds of a contended window are
    re-timed (`retry`, up to `max_retries` windows per mode, then `MachineBusy`), refused (`fail`), or kept
    and marked (`warn`).

    Returns the raw samples per variant, the compilations counted inside each sample, whether each sample
    was taken in a contended window, and the machine's record of the mode (per window, and a summary).
    """
    names = list(samplers)
    samples: dict[str, list[float]] = {name: [] for name in names}
    compiles: dict[str, list[CompileCount]] = {name: [] for name in names}
    marked: dict[str, list[bool]] = {name: [] for name in names}
    windows: list[dict[str, Any]] = []
    pending: list[dict[str, tuple[float, CompileCount]]] = []
    retried = 0
    loads, clocks = [load_average()], [cpu_mhz()]
    start = time.perf_counter()
    window_start = Reading.now()
    while len(samples[names[0]]) < sampling.repeats:
        kept = len(samples[names[0]])
        order = names if (kept + len(pending)) % 2 == 0 else list(reversed(names))
        taken: dict[str, tuple[float, CompileCount]] = {}
        for name in order:
            setup = getattr(samplers[name], "setup", None)
            if setup is not None:
                setup()  # untimed and uncounted preparation of this sample (e.g. a deliberately short warmup)
            with count_compiles() as counter, gc_paused():
                seconds = samplers[name]()
            taken[name] = (seconds, counter)
        pending.append(taken)
        now = Reading.now()
        done = kept + len(pending)
        elapsed = time.perf_counter() - start
        out_of_budget = sampling.budget_s is not None and done >= min_repeats and elapsed >= sampling.budget_s
        if now.wall - window_start.wall < WINDOW_S and done < sampling.repeats and not out_of_budget:
            continue
        activity = Activity.between(window_start, now)
        contended = activity.contended(sampling.max_busy_share)
        if contended and (sampling.on_contention == "fail" or retried >= sampling.max_retries):
            raise MachineBusy(_busy_message(label, activity, sampling, retried))
        if contended and sampling.on_contention == "retry":
            retried += 1
            windows.append(_window_record(activity, len(pending), True, False))
            log.warning("%s: %d round(s) re-timed: %s", label, len(pending), activity.describe())
        else:
            windows.append(_window_record(activity, len(pending), contended, True))
            for rnd in pending:
                for name, (seconds, counter) in rnd.items():
                    samples[name].append(seconds)
                    compiles[name].append(counter)
                    marked[name].append(contended)
            if done % max(1, sampling.repeats // 5) == 0 or done == sampling.repeats or out_of_budget:
                log.info("%s: round %d/%d (%.1f s, %d window(s) re-timed)", label, done, sampling.repeats, elapsed,
                     retried)
            if out_of_budget:
                break
        pending = []
        window_start = Reading.now()
    loads.append(load_average())
    clocks.append(cpu_mhz())
    policy = {"on_contention": sampling.on_contention, "max_busy_share": sampling.max_busy_share,
              "max_retries": sampling.max_retries}
    return samples, compiles, marked, machine_summary(windows, policy, loads, clocks)

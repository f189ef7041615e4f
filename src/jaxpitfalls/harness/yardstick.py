"""The yardstick: a fixed workload timed once per round of every timed mode, so that a run says how fast the
machine was while it timed, round by round.

Two runs timed at different times (another day, half an hour apart on a shared cloud VM) differ by the
machine's speed as much as by anything they were meant to compare: a VM ran a whole job 1.4x slower and the
next 0.6x faster than the same code half an hour earlier. A variant's sample divided by the yardstick of its
own round is its cost in units of the machine's speed at that moment, which is what `report.compare` sets
side by side across runs. On this project's 2-core VM, with a busy neighbour for 20 s of a minute, a jitted
step took 2.14x as long and the yardstick 2.34x, their quotient moving 2.6%.

Only the interpreter and numpy (a small matmul chain and dict work, as dispatch does in Python): never JAX,
Equinox or anything else a comparison may be about, so that an upgrade of those cannot move the yardstick.
"""

from __future__ import annotations

import time

import numpy as np

_MATRIX = np.random.default_rng(0).standard_normal((160, 160)).astype(np.float32)
_REPEATS = 3  # the median of three ~2.5 ms runs: one preempted run does not make the machine look slow


def _once() -> float:
    start = time.perf_counter()
    x = _MATRIX
    for _ in range(8):
        x = np.tanh(x @ _MATRIX)
    table: dict[int, tuple[int, str]] = {}
    for i in range(3000):
        table[i % 97] = (i, str(i))
    sum(table)
    return time.perf_counter() - start


def yardstick() -> float:
    """Seconds one run of the fixed workload takes now: the median of three (about 2.6 ms each on the 2-core
    VM, so about 8 ms a round)."""
    return float(np.median([_once() for _ in range(_REPEATS)]))

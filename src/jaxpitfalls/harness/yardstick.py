"""The yardstick: a fixed workload timed once per round of every timed mode, so that a run says how fast the
machine was while it timed, round by round.

Two runs timed at different times (another day, half an hour apart on a shared cloud VM) differ by the
machine's speed as much as by anything they were meant to compare: a VM ran a whole job 1.4x slower and the
next 0.6x faster than the same code half an hour earlier. A variant's sample divided by the yardstick of its
own round is its cost in units of the machine's speed at that moment, which is what `comparison.compare` sets
side by side across runs. On this project's 2-core VM, with a busy neighbour for 20 s of a minute, a jitted
step took 2.14x as long and the yardstick 2.34x, their quotient moving 2.6%.

Only the interpreter and numpy (a small matmul chain and dict work, as dispatch does in Python): never JAX,
Equinox or anything else a comparison may be about, so that an upgrade of those cannot move the yardstick.

The matrices stay below OpenBLAS's threading threshold (m x n x k under 262144), so numpy multiplies them in
the calling thread. Version 1 multiplied 160 x 160 matrices: that woke numpy's BLAS threads, which then spun
on the cores for a while after each run, and a jitted 8 ms matmul timed right after the yardstick took 13.0
ms against 7.8 ms without it on the 2-core VM (48 x 48: 8.44 vs 8.37 ms). Every round's first sample paid it
most: the cost of the first place in a round (docs/decisions.md#yardstick-size).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

VERSION = 2  # recorded with every round's yardstick: only one workload's seconds are compared with each other
_SIZE, _CHAIN = 48, 100  # 48^3 multiply-adds per product: one thread (see above); ~1.6 ms a run with the dicts
_MATRIX = (np.random.default_rng(0).standard_normal((_SIZE, _SIZE)) / np.sqrt(_SIZE)).astype(np.float32)
_REPEATS = 3  # the median of three runs: one preempted run does not make the machine look slow


def _once() -> float:
    start = time.perf_counter()
    x = _MATRIX
    for _ in range(_CHAIN):
        x = np.tanh(x @ _MATRIX)
    table: dict[int, tuple[int, str]] = {}
    for i in range(3000):
        table[i % 97] = (i, str(i))
    sum(table)
    return time.perf_counter() - start


def yardstick() -> float:
    """Seconds one run of the fixed workload takes now: the median of three (about 1.6 ms each on the 2-core
    VM, so about 5 ms a round)."""
    return float(np.median([_once() for _ in range(_REPEATS)]))


def current_yardstick(record: dict[str, Any]) -> list[float]:
    """A mode's machine record's yardstick seconds, one per round, where they timed the current workload; none
    where the result has none or timed another (an older yardstick_version: version 1's woke numpy's BLAS
    threads), since only one workload's seconds are compared with each other."""
    if record.get("yardstick_version", 1) != VERSION:
        return []
    return record.get("yardstick_s") or []

"""The yardstick: a fixed workload timed once per round of every timed mode, so a run records the machine's
speed round by round; a sample over its round's yardstick is its cost in that speed's units.

Only the interpreter and numpy, never anything a comparison may be about. Its matrices stay below OpenBLAS's
threading threshold (m x n x k under 262144): woken BLAS threads slow the next sample
(docs/decisions.md#yardstick-size).
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
    """Seconds one run of the fixed workload takes now: the median of three."""
    return float(np.median([_once() for _ in range(_REPEATS)]))


def current_yardstick(record: dict[str, Any]) -> list[float]:
    """A mode's yardstick seconds per round, if they timed the current workload's version; else none."""
    if record.get("yardstick_version", 1) != VERSION:
        return []
    return record.get("yardstick_s") or []

"""Where processes or rounds buy precision (Kalibera and Jones, "Rigorous benchmarking in reasonable time", 2013):
a row's variance over P processes of R rounds is (between + within / R) / P at a machine time of P x (process + R x
round), so the rounds that buy most a second are sqrt(process x within / (round x between)). Rounds are taken as
independent (rounds that drift buy less)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

MAX_ROUNDS = 1000  # where processes agree exactly: the rounds a process is capped at
MIN_PROCESSES = 3  # fewer leave a row's t interval on too few degrees of freedom, whatever the variance says


def variance_parts(rows: Iterable[Sequence[np.ndarray]]) -> tuple[float, float]:
    """A round's variance within a process and that between processes (at least 0), averaged over rows (each its
    processes' round log-ratios)."""
    within, between = [], []
    for row in rows:
        w = float(np.mean([np.var(x, ddof=1) for x in row]))
        spread = float(np.var([np.mean(x) for x in row], ddof=1))
        within.append(w)
        between.append(max(0.0, spread - w * float(np.mean([1 / len(x) for x in row]))))
    return float(np.mean(within)), float(np.mean(between))


def plan(within: float, between: float, process_s: float, round_s: float, variance: float, min_processes: int
         ) -> tuple[int, int, float]:
    """The rounds a process that buy the most precision a second, the whole processes (at least `min_processes`)
    that reach `variance` at them, the fewest rounds that reach it with those processes, and the machine time so."""
    best = math.sqrt(process_s * within / (round_s * between)) if between > 0 else MAX_ROUNDS
    rounds = int(min(MAX_ROUNDS, max(1, round(best))))
    processes = max(min_processes, math.ceil((between + within / rounds) / variance - 1e-9))
    reaching = _rounds_reaching(within, between, variance, processes)
    if reaching is not None:  # whole processes may need fewer rounds than the optimum
        rounds = min(rounds, max(1, reaching))
    return rounds, processes, processes * (process_s + rounds * round_s)


def _rounds_reaching(within: float, between: float, variance: float, processes: int) -> int | None:
    """The fewest rounds at which `processes` reach `variance`; None where the between part alone exceeds it."""
    if processes * variance <= between:
        return None
    return math.ceil(within / (processes * variance - between) - 1e-9)


def cheapest(within: float, between: float, process_s: float, round_s: float, variance: float, processes: range,
             min_rounds: int) -> tuple[int, int, float] | None:
    """Of `processes`, each at the fewest rounds (at least `min_rounds`) reaching `variance`, the cheapest (rounds,
    processes, seconds); None where none does within MAX_ROUNDS."""
    options = []
    for count in processes:
        reaching = _rounds_reaching(within, between, variance, count)
        if reaching is not None and max(min_rounds, reaching) <= MAX_ROUNDS:
            rounds = max(min_rounds, reaching)
            options.append((count * (process_s + rounds * round_s), rounds, count))
    if not options:
        return None
    seconds, rounds, count = min(options)
    return rounds, count, seconds

"""Real load for the tests about contention: CPU-bound processes beside the test on half the cores (at least one),
killed when the block ends. Half is 50% of the machine to other processes, far over any `measure.max_busy_share`
a test sets, and it leaves the rest of the machine to the test's job and to the tests beside it.

`niceness` 19 makes them take only what nothing else wants: a job asks whether *other* processes used the machine,
and under pytest-xdist the other workers' tests are such processes too, so the load is still there while the
spinning steals no CPU from the tests beside it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def busy_neighbours(niceness: int = 0) -> Iterator[list[subprocess.Popen]]:
    spin = f"import os\nos.nice({niceness})\nwhile True: pass"
    processes = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(max(1, (os.cpu_count() or 2) // 2))]
    try:
        yield processes
    finally:
        for p in processes:
            p.kill()
            p.wait()

"""Real load for the tests about contention: CPU-bound processes beside the test, one per core (at least two,
as on the 2-core VM the contention issues were measured on), killed when the block ends."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def busy_neighbours() -> Iterator[list[subprocess.Popen]]:
    processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                 for _ in range(max(2, os.cpu_count() or 2))]
    try:
        yield processes
    finally:
        for p in processes:
            p.kill()
            p.wait()

"""A known slowdown injected into one side of a lockstep comparison to calibrate the statistics: `SLOWDOWN_ENV`
(e.g. "0.05") adds busy work of that fraction of each sample's own time, a known factor whatever the machine did.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from .timing import Sampler

SLOWDOWN_ENV = "JAXPITFALLS_CALIBRATION_SLOWDOWN"
KNOB = "proportional"  # recorded by each worker: results without it had a fixed amount per worker


def injected_fraction(env: Mapping[str, str] = os.environ) -> float:
    """The slowdown a side's environment asks for (0 where it asks for none)."""
    fraction = float(env.get(SLOWDOWN_ENV) or 0.0)
    if not 0 <= fraction < 1:
        raise ValueError(f"{SLOWDOWN_ENV}={fraction}: a fraction of a sample's time, 0 <= f < 1")
    return fraction


def busy_for(seconds: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Spin (work, not sleep) until `seconds` passed on `clock`; the seconds it took."""
    start = clock()
    end = start + seconds
    now = start
    while now < end:
        now = clock()
    return now - start


def slowed(sampler: Sampler, fraction: float, clock: Callable[[], float] = time.perf_counter) -> Sampler:
    """`sampler` with busy work of `fraction` of each sample's time added, timed with the sample."""
    def sample() -> float:
        taken = sampler()
        return taken + busy_for(fraction * taken, clock)

    return sample


def inject(samplers: dict[str, dict[str, Sampler]], fraction: float,
           clock: Callable[[], float] = time.perf_counter) -> dict[str, dict[str, Sampler]]:
    """Every mode's and variant's sampler slowed by `fraction` (unchanged where it is 0)."""
    if not fraction:
        return samplers
    return {mode: {name: slowed(s, fraction, clock) for name, s in by_variant.items()}
            for mode, by_variant in samplers.items()}

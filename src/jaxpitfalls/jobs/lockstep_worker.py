"""A warm worker of one side of a lockstep comparison (harness/lockstep.py): it prepares a study
configuration's variants once (load, warm up, check their outputs and signatures, calibrate; a calibration's
known slowdown added where the side's environment asks for one: harness/injected.py), then times blocks on
request until its input closes.

`python -m jaxpitfalls.jobs.lockstep_worker REQUEST.json LOG_PATH JAX_CACHE_DIR`, speaking the workers'
protocol (harness/workers.py): the first reply says it is ready (its modes and variants, environment,
signatures, injected slowdown) or why it failed; then one reply per `{"mode", "variant", "samples"}` request.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, TextIO

from .. import runtime
from ..contract import registry
from ..harness import environment
from ..harness.compiles import count_compiles
from ..harness.injected import KNOB, inject, injected_fraction
from ..harness.timing import Sampler, gc_paused
from ..harness.workers import answer_first, reply_channel, send


def block(sampler: Sampler, samples: int) -> dict[str, Any]:
    """`samples` samples of one variant, and the CPU time they took (all this process's threads: the driver
    tells the machine's other processes from the workers by it); an error reply where any compiled: the
    warmup missed a shape, and a block with compilation in it is not comparable with the other side's."""
    cpu = time.process_time()
    with count_compiles() as counter:
        taken = []
        for _ in range(samples):
            with gc_paused():
                taken.append(sampler())
    if counter.count:
        return {"error": f"{counter.count} compilation(s) inside a timed block: the warmup missed a shape"}
    return {"samples": taken, "cpu_s": time.process_time() - cpu}


def serve(samplers: dict[str, dict[str, Sampler]], requests: TextIO, replies: TextIO) -> None:
    """Answer block requests (`{"mode", "variant", "samples"}`) until the requests end."""
    for line in requests:
        asked = json.loads(line)
        send(replies, block(samplers[asked["mode"]][asked["variant"]], int(asked["samples"])))


def prepared(request_path: str) -> tuple[dict[str, Any], dict[str, dict[str, Sampler]], dict[str, Any]]:
    """The request, its configuration's calibrated samplers per mode and variant (the study's `Lockstep`), and
    what the study said of them: what a lockstep worker times, and pyperf's on the same callable."""
    with open(request_path) as f:
        request = json.load(f)
    settings = registry.spec(request["study"]).timing.of(request["settings"])
    samplers, described = registry.lockstep(request["study"]).samplers(request["conf"], request["inputs"], settings)
    return request, samplers, described


def main(request_path: str, log_path: str, jax_cache_dir: str = "") -> None:
    replies = reply_channel()
    runtime.start(log_path or None, jax_cache_dir or None, append=True)
    ready: dict[str, dict[str, dict[str, Sampler]]] = {}

    def prepare() -> dict[str, Any]:
        request, samplers, described = prepared(request_path)
        fraction = injected_fraction()  # a calibration's known slowdown, where the side's environment asks for one
        ready["samplers"] = inject(samplers, fraction)
        return described | {"modes": {mode: list(by_variant) for mode, by_variant in ready["samplers"].items()},
                            "environment": environment.of_request(request), "injected_slowdown": fraction,
                            "injected_kind": KNOB}

    answer_first(replies, prepare, f"lockstep worker: preparing {request_path}")
    serve(ready["samplers"], sys.stdin, replies)


if __name__ == "__main__":
    main(*sys.argv[1:4])

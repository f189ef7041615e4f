"""A warm worker of one lockstep side: prepares a configuration's variants once, then calibrates calls per sample
and times blocks on request until input closes.

`python -m jaxpitfalls.jobs.lockstep_worker REQUEST.json LOG_PATH JAX_CACHE_DIR`: the first reply says ready or why
not; then one reply per `{"calibrate": true}` or `{"mode", "variant", "samples", "calls"}` request."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Collection
from typing import Any, TextIO

from .. import registry, runtime
from ..harness import environment
from ..harness.compiles import count_compiles
from ..harness.injected import KNOB, inject, injected_fraction
from ..harness.protocol import Repeated, calibrate
from ..harness.timing import Sampler, gc_paused
from ..harness.workers import answer, answer_first, leave, reply_channel, send


def block(sampler: Sampler, samples: int, calls: int, recompiles: bool = False) -> dict[str, Any]:
    """`samples` samples of `calls` calls of one variant (seconds per call) and their CPU time; an error if any
    compiled, but in RECOMPILES' (`recompiles`: allowed, not required, as a side's fix may end it)."""
    sampler = Repeated(sampler, calls) if calls > 1 else sampler
    cpu = time.process_time()
    with count_compiles() as counter:
        taken = []
        for _ in range(samples):
            with gc_paused():
                taken.append(sampler())
    if counter.count and not recompiles:
        return {"error": f"{counter.count} compilation(s) inside a timed block: the warmup missed a shape"}
    if counter.cache_hits and recompiles:
        return {"error": f"{counter.cache_hits} program(s) read from the persistent compilation cache where the "
                         "variant compiles every time (RECOMPILES): set the study's compilation_cache: false"}
    return {"samples": taken, "cpu_s": time.process_time() - cpu}


def serve(samplers: dict[str, dict[str, Sampler]], requests: TextIO, replies: TextIO,
          recompiling: Collection[str] = (), min_sample_s: float = 0.0, where: str = "") -> None:
    """Answer requests until they end: calls per sample (asked once every side is ready, one side at a time, so no
    side's compiling shortens another's calls), or a block."""
    for line in requests:
        asked = json.loads(line)
        if asked.get("calibrate"):
            answer(replies, lambda: {"calls_per_sample": calls_per_sample(samplers, min_sample_s, where, recompiling)},
                   "lockstep worker: calibrating")
            continue
        send(replies, block(samplers[asked["mode"]][asked["variant"]], int(asked["samples"]), int(asked["calls"]),
                            asked["variant"] in recompiling))


def prepared(request_path: str) -> tuple[dict[str, Any], dict[str, dict[str, Sampler]], dict[str, Any], float]:
    """The request, its one-call samplers per mode and variant (those it names, where it names some), what the study
    said, and the shortest sample."""
    with open(request_path) as f:
        request = json.load(f)
    settings = registry.spec(request["study"]).timing.of(request["settings"])
    samplers, described = registry.lockstep(request["study"]).samplers(request["conf"], request["inputs"], settings,
                                                                       request.get("variants") or ())
    return request, samplers, described, settings.sampling.min_sample_s


def calls_per_sample(samplers: dict[str, dict[str, Sampler]], min_sample_s: float, where: str,
                     recompiling: Collection[str] = ()) -> dict[str, Any]:
    """Per mode and variant, the calls a sample of at least `min_sample_s` takes here."""

    return {mode: calibrate(by_variant, min_sample_s, f"{where} ({mode})", recompiling=recompiling)[1]
            for mode, by_variant in samplers.items()}


def main(request_path: str, log_path: str, jax_cache_dir: str = "") -> None:
    replies = reply_channel()
    runtime.start(log_path or None, jax_cache_dir or None, append=True)
    ready: dict[str, Any] = {}

    def prepare() -> dict[str, Any]:
        request, samplers, described, min_sample_s = prepared(request_path)
        fraction = injected_fraction()  # a calibration's known slowdown, where the side's environment asks for one
        ready.update(samplers=inject(samplers, fraction), min_sample_s=min_sample_s, where=request["conf"]["id"],
                     recompiling=described.get("recompiling", []))  # a benchmark file's RECOMPILES
        return described | {"modes": {mode: list(by_variant) for mode, by_variant in ready["samplers"].items()},
                            "environment": environment.of_request(request), "injected_slowdown": fraction,
                            "injected_kind": KNOB}

    answer_first(replies, prepare, f"lockstep worker: preparing {request_path}")
    serve(ready["samplers"], sys.stdin, replies, ready["recompiling"], ready["min_sample_s"], ready["where"])
    leave()


if __name__ == "__main__":
    main(*sys.argv[1:4])

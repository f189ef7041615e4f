"""generation's timed and traced runs, and their checks."""
from __future__ import annotations

import time
from typing import Any

import jax
import numpy as np

from ...contract.naming import is_base
from ...contract.settings import Traced
from ...harness import tracing
from ...harness.compiles import count_compiles, first_calls
from ...harness.protocol import Runner, measure_mode, result_document
from ...harness.variants import require_agree, require_distinct
from .decoding import DECODERS, Decoder
from .spec import SPEC, Timing, untimed, warmup_tokens

if tuple(DECODERS) != SPEC.variants:  # the spec names them for the plan and the report
    raise RuntimeError(f"SPEC.variants {SPEC.variants} differ from the decoders {tuple(DECODERS)}")


def prompt_tokens(data_dir: str, length: int) -> np.ndarray:
    """The first `length` tokens of the corpus (its documents in order)."""
    from ...data import load_tokens

    tokens = np.concatenate(list(load_tokens(data_dir).values()))
    if tokens.size < length:
        raise ValueError(f"the corpus has {tokens.size} tokens, fewer than a prompt of {length}")
    return tokens[:length]


def prepare(conf: dict[str, Any], inputs: dict[str, str]) -> tuple[dict[str, Decoder], np.ndarray]:
    """Every variant's decoder on the model, and the prompt (checked against the model's vocabulary)."""
    from ...models.bounds import require_positions
    from ...models.checkpoint import load_model

    model, _ = load_model(inputs["model"])
    prompt = prompt_tokens(inputs["data"], conf["prompt"])
    model.require_ids(prompt)
    require_positions(conf["prompt"] + conf["new_tokens"], model.wpe, f"GPT-2 for {conf['id']}")
    return {name: cls(model) for name, cls in DECODERS.items()}, prompt


def _first_runs(decoders: dict[str, Decoder], prompt: np.ndarray, new: int) -> tuple[dict, dict]:
    """Each variant's first generation (its warmup): the tokens, and its time and compilations."""
    tokens, first = {}, {}
    for name, d in decoders.items():
        with count_compiles() as counter:
            start = time.perf_counter()
            tokens[name] = d.generate(prompt, new)
            seconds = time.perf_counter() - start
        first[name] = {"seconds": seconds, "compiles": counter.count, "compile_seconds": counter.seconds}
    return tokens, first


class _Timed:
    """Times one generation per call; with `short`, each sample first rebuilds programs warmed with `short` tokens."""

    def __init__(self, decoder: Decoder, prompt: np.ndarray, new: int, short: int | None = None) -> None:
        self.decoder, self.prompt, self.new, self.short = decoder, prompt, new, short
        self.tokens: np.ndarray | None = None
        self.calls = 0
        self.warmup_compiles = 0

    def setup(self) -> None:
        """Before each sample (untimed, uncounted by the guard): fresh programs and the short warmup."""
        if self.short is not None:
            self.decoder.build()
            with count_compiles() as counter:
                self.decoder.generate(self.prompt, self.short)
            self.warmup_compiles += counter.count

    def __call__(self) -> float:
        before = self.decoder.calls
        start = time.perf_counter()
        self.tokens = self.decoder.generate(self.prompt, self.new)
        seconds = time.perf_counter() - start
        self.calls = self.decoder.calls - before
        return seconds


def _signature(decoder: Decoder, sample: _Timed, compiles: dict[str, int]) -> dict[str, int]:
    """What one generation ran: jitted functions, counted calls, compiles (first generation, or per timed one)."""
    return {"jitted_functions": len(decoder.functions), "calls_per_generation": sample.calls} | compiles


def mismatched_warmup(decoders: dict[str, Decoder], prompt: np.ndarray, new: int) -> dict[str, Any]:
    """The matched-warmup advice: compiles in one generation of fresh kv_cache programs warmed by the uncached loop
    or by kv_cache."""
    timed, other = decoders[SPEC.floor], decoders["uncached"]
    found: dict[str, Any] = {"warmed": "uncached", "timed": SPEC.floor}
    for warmup, warm in (("mismatched", other), ("matched", timed)):
        timed.build()
        warm.generate(prompt, new)
        with count_compiles() as counter:
            start = time.perf_counter()
            timed.generate(prompt, new)
            found[f"{warmup}_ms"] = (time.perf_counter() - start) * 1e3
        found[f"{warmup}_compiles"] = counter.count
    return found


def run(conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
    """Time every variant's generation; with `warmup_fraction` below 1, demonstrate the pitfall instead."""
    decoders, prompt = prepare(conf, inputs)
    new = conf["new_tokens"]
    short = warmup_tokens(conf) if conf["warmup_fraction"] < 1 else None
    not_timed = untimed(conf, settings.eager, is_base(conf))
    decoders = {name: d for name, d in decoders.items() if name not in not_timed}
    samplers = {name: _Timed(d, prompt, new, short) for name, d in decoders.items()}
    if short is None:
        tokens, first = _first_runs(decoders, prompt, new)
        agreement = require_agree(tokens, SPEC.floor, exact=True)
        for sampler in samplers.values():
            sampler()  # the jitted calls of a warm generation, for the signature
        signatures = {name: _signature(d, samplers[name], {"compiles_first_generation": first[name]["compiles"]})
                      for name, d in decoders.items()}
        distinct = require_distinct(signatures)
    timed = measure_mode(samplers, "generate", SPEC.floor, settings.sampling, conf["id"],
                         tuple(pair for pair in SPEC.extra_pairs if not set(pair) & set(not_timed)),
                         compiles="forbidden" if short is None else "recorded")
    caught = {name: e["compiles_in_timed_region"] for name, e in timed.entries.items()}
    if short is not None:
        if not all(caught.values()):
            raise RuntimeError(f"{conf['id']}: a warmup of {short} of {new} tokens left nothing to compile for "
                               f"{[n for n, c in caught.items() if not c]}: the demonstration did not happen")
        tokens = {name: sampler.tokens for name, sampler in samplers.items()}
        agreement = require_agree(tokens, SPEC.floor, exact=True)
        per_sample = {name: caught[name] // len(timed.entries[name]["samples_s"]) for name in decoders}
        signatures = {name: _signature(d, samplers[name], {"compiles_per_timed_generation": per_sample[name]})
                      for name, d in decoders.items()}
        distinct = require_distinct(signatures)
    variants = {name: {"signature": signatures[name], "calls": decoders[name].calls,
                       "compiles_in_warmup": first[name]["compiles"] if short is None
                       else samplers[name].warmup_compiles} | ({"first_run": first[name]} if short is None else {})
                for name in decoders}
    checks = {"outputs_agree": agreement | {"outputs": "greedy tokens of a whole generation"},
              "signatures_distinct": distinct} | ({"compile_guard_caught": caught} if short is not None else {})
    doc = result_document(
        SPEC.floor, {"generate": timed}, variants, checks, not_timed=not_timed, tokens=tokens[SPEC.floor].tolist(),
        structure={"prompt_tokens": int(prompt.size), "new_tokens": new,
                   "parameters": sum(x.size for x in jax.tree_util.tree_leaves(decoders[SPEC.floor].model))})
    if short is not None:
        doc["demonstration"] = (f"insufficient warmup: {short} of {new} tokens, on fresh programs before "
                                "each sample; compilations inside the timed region counted, not refused")
    else:  # last: it rebuilds kv_cache's programs (and resets its calls, recorded above)
        doc["checks"]["findings"] = {"mismatched_warmup": mismatched_warmup(decoders, prompt, new)}
    return doc


def trace(conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
    """The traced pass: a few warm generations per variant."""
    decoders, prompt = prepare(conf, inputs)
    runners = {name: Runner(name=name, step=lambda d=d: d.generate(prompt, conf["new_tokens"]), signature=dict)
               for name, d in decoders.items()}
    first_calls({name: r.step for name, r in runners.items()})  # warm, side by side
    return tracing.capture(runners, settings.trace_steps, out_dir, settings.captures)

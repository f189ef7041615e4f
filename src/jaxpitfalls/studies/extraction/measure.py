"""extraction's timed and traced runs, and their checks."""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np

from ...contract.settings import Traced
from ...harness import tracing
from ...harness.compiles import count_compiles, first_calls
from ...harness.protocol import Runner, Timed, measure_mode, result_document
from ...harness.sampling import Sampling
from ...harness.variants import require_agree, require_distinct
from . import decode_step, device_get, donation, flax_apply
from .extractors import EXTRACTORS, Extractor, batches, hidden_states
from .fixes import FIRST_PASS_VARIANTS
from .scratch import make_scratch
from .spec import SPEC, Timing

if tuple(EXTRACTORS) != SPEC.variants:  # the spec names them for the plan and the report
    raise RuntimeError(f"SPEC.variants {SPEC.variants} differ from the extractors {tuple(EXTRACTORS)}")


def dataset(data_dir: str, conf: dict[str, Any]) -> list[np.ndarray]:
    """`sequences` consecutive slices of the corpus, lengths drawn (seeded) in [min_len, max_len]."""
    from ...data import load_tokens

    if conf["sequences"] % conf["batch"] == 0:
        raise ValueError(f"{conf['id']}: sequences={conf['sequences']} is a multiple of batch={conf['batch']}: "
                         "the last batch would not be ragged, and the study measures what a ragged one costs")
    tokens = np.concatenate(list(load_tokens(data_dir).values()))
    lengths = np.random.default_rng(0).integers(conf["min_len"], conf["max_len"] + 1, conf["sequences"])
    if lengths.sum() > tokens.size:
        raise ValueError(f"the corpus has {tokens.size} tokens, fewer than the {lengths.sum()} the dataset needs")
    ends = np.cumsum(lengths)
    return [tokens[end - n:end] for n, end in zip(lengths, ends, strict=True)]


def prepare(conf: dict[str, Any], inputs: dict[str, str]) -> tuple[Any, Any, list[np.ndarray]]:
    """Model, config and dataset, token ids checked against the vocabulary before timing (JAX would clamp them)."""
    from ...models.checkpoint import load_model

    model, config = load_model(inputs["model"])
    sequences = dataset(inputs["data"], conf)
    model.require_ids(np.concatenate(sequences))
    return model, config, sequences


def dataset_batches(sequences: list[np.ndarray], conf: dict[str, Any], padded: bool) -> list:
    """The batches a variant sees: padded to max_len (the write-up's fixed length); the ragged last too if `padded`."""
    return batches(sequences, conf["batch"], conf["max_len"], padded)


def kept_bytes(model, layers: tuple[int, ...], sequences: list[np.ndarray]) -> int:
    """Bytes the passes keep at once: one of each variant (float32 at most)."""
    one = sum(len(s) for s in sequences) * int(model.embed_tokens.shape[1]) * len(layers) * 4
    return one * (len(EXTRACTORS) + len(FIRST_PASS_VARIANTS))


class _Pass:
    """A sampler: one whole pass of a variant over the dataset into a fresh directory (the last one kept)."""

    def __init__(self, name: str, extractor: Extractor, data: list, scratch: Path) -> None:
        self.extractor, self.data, self.root = extractor, data, scratch / name
        self.passes = 0

    def out_dir(self) -> Path:
        path = self.root / f"pass{self.passes}"
        path.mkdir(parents=True)
        return path

    def __call__(self) -> float:
        shutil.rmtree(self.root / f"pass{self.passes - 1}", ignore_errors=True)  # untimed
        out = self.out_dir()
        start = time.perf_counter()
        self.extractor.run(self.data, out)
        self.passes += 1
        return time.perf_counter() - start


class _FreshPass(_Pass):
    """A sampler: a pass of a fresh variant (new `jax.jit`), so the forward compiles in every sample, the rest warm."""

    def __init__(self, name: str, make: Callable[[], Extractor], data: list, scratch: Path) -> None:
        super().__init__(name, make(), data, scratch)
        self.make = make

    def setup(self) -> None:
        self.extractor = self.make()


def first_passes(model, layers: tuple[int, ...], data: dict[bool, list], scratch: Path, sampling: Sampling,
                 label: str) -> Timed:
    """Whole first passes before and after padding, compiles included, no persistent cache, after an untimed round
    (docs/decisions.md#first-pass-primer-round)."""
    samplers = {name: _FreshPass(name, lambda cls=EXTRACTORS[name]: cls(model, layers), data[EXTRACTORS[name].padded],
                                 scratch / "first_pass")
                for name in FIRST_PASS_VARIANTS}
    for sampler in samplers.values():
        sampler.setup()
        sampler()
    return measure_mode(samplers, "first_pass", FIRST_PASS_VARIANTS[-1], sampling, label, compiles="required")


# Eager and jitted forwards differ by float32 rounding that grows with depth (24 layers: 2.7e-5 at activations of
# a few units, over 1e-5): the absolute tolerance is relative to the largest activation stored. A variant that
# stores the wrong rows or lets padding leak differs by the activations' own size.
AGREE_ATOL = 1e-5


def stored(directory: Path) -> np.ndarray:
    """Everything a pass stored, in file order, as one flat array."""
    return np.concatenate([np.load(p).ravel() for p in sorted(directory.glob("*.npy"))])


def device_get_probe(extractor: Extractor, batch: tuple) -> dict[str, Any]:
    """device_get.probe on a warm jitted forward of `batch` (already on device: dispatch starts only the forward)."""
    ids, mask = jnp.asarray(batch[0]), jnp.asarray(batch[1])
    return device_get.probe(lambda: extractor.forward(extractor.model, ids, mask))


def _stage_each_shape(data: dict[bool, list]) -> None:
    """Each batch shape put on the device once: else the first variant counts that compile."""
    for ids in {b[0].shape: b[0] for batches_ in data.values() for b in batches_}.values():
        jnp.asarray(ids).block_until_ready()


def run(conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
    model, config, sequences = prepare(conf, inputs)
    layers = tuple(range(config.num_hidden_layers + 1))
    data = {padded: dataset_batches(sequences, conf, padded) for padded in (False, True)}
    scratch, storage = make_scratch("extraction-", kept_bytes(model, layers, sequences))
    try:
        samplers = {name: _Pass(name, cls(model, layers), data[cls.padded], scratch)
                    for name, cls in EXTRACTORS.items()}
        first, outputs = {}, {}
        _stage_each_shape(data)
        for name, sampler in samplers.items():
            with count_compiles() as counter:
                seconds = sampler()
            first[name] = {"seconds": seconds, "compiles": counter.count, "compile_seconds": counter.seconds}
            outputs[name] = stored(scratch / name / "pass0")
        scale = float(np.max(np.abs(outputs[SPEC.floor])))
        agreement = require_agree(outputs, SPEC.floor, exact=False, rtol=1e-4, atol=AGREE_ATOL * scale)
        signatures = {name: {"compiles_first_pass": first[name]["compiles"]}
                      | {f"{k}_per_pass": v for k, v in s.extractor.counts.items()}
                      for name, s in samplers.items()}
        distinct = require_distinct(signatures)
        for s in samplers.values():
            s.extractor.seconds = dict.fromkeys(s.extractor.seconds, 0.0)
        warm_passes = {name: s.passes for name, s in samplers.items()}
        sampling = settings.sampling
        warm_s = {name: f["seconds"] - f["compile_seconds"] for name, f in first.items()}  # no calibrating pass
        modes = {"extract": measure_mode(samplers, "extract", SPEC.floor, sampling, conf["id"], SPEC.extra_pairs,
                                         known_s=warm_s)}
        timed_passes = {name: s.passes - warm_passes[name] for name, s in samplers.items()}
        forward = partial(hidden_states, layers=layers)
        found = {"device_get": device_get_probe(samplers["jit_padded"].extractor, data[True][0]),
                 "decode_step": decode_step.probe(model, forward),
                 "donation": donation.probe(model, forward, *data[True][:2]),
                 "flax_apply": flax_apply.probe(config.num_hidden_layers, int(model.embed_tokens.shape[1]),
                                                conf["batch"], conf["max_len"])}
        modes["first_pass"] = first_passes(model, layers, data, scratch, settings.first_pass_sampling, conf["id"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    variants = {name: {"signature": signatures[name], "calls": s.passes, "compiles_in_warmup": first[name]["compiles"],
                       "first_run": first[name],
                       "phase_seconds_per_pass": {k: v / timed_passes[name] for k, v in s.extractor.seconds.items()}}
                for name, s in samplers.items()}
    checks = {"outputs_agree": agreement | {"outputs": "every stored activation (real tokens, every layer)",
                                            "atol_relative_to_max_activation": AGREE_ATOL, "max_activation": scale},
              "signatures_distinct": distinct, "findings": found}
    return result_document(SPEC.floor, modes, variants, checks, structure={
        "sequences": len(sequences), "tokens": int(sum(len(s) for s in sequences)), "batches": len(data[False]),
        "last_batch": len(data[False][-1][2]), "layers_extracted": len(layers), "length": conf["max_len"],
        "hidden": int(model.embed_tokens.shape[1]), "storage": storage})


TRACED_BATCHES = 3  # the full batches a traced pass covers, besides the ragged last one


def trace(conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
    """The traced pass: a few warm passes per variant over the first TRACED_BATCHES batches and the ragged last one."""
    model, config, sequences = prepare(conf, inputs)
    layers = tuple(range(config.num_hidden_layers + 1))
    scratch = make_scratch("extraction-trace-", kept_bytes(model, layers, sequences))[0]
    try:
        samplers = {}
        for name, cls in EXTRACTORS.items():
            data = dataset_batches(sequences, conf, cls.padded)
            samplers[name] = _Pass(name, cls(model, layers),
                                   data[:TRACED_BATCHES] + data[max(TRACED_BATCHES, len(data) - 1):], scratch)
        first_calls(samplers)  # warm (every shape compiled), side by side
        runners = {name: Runner(name=name, step=s, signature=dict)
                   for name, s in samplers.items()}
        return tracing.capture(runners, settings.trace_steps, out_dir, settings.captures)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

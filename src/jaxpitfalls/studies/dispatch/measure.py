"""dispatch's timed and traced runs, and their checks."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from ...contract.naming import is_base
from ...harness import tracing
from ...harness.protocol import Runner, measure, mode_samplers, result_document, warm_up
from ...harness.stats import difference_side
from ...harness.timing import Sampler
from ...harness.variants import call_signature, require_agree, require_distinct
from .calls import add_mode, program_named
from .inference import measure_inference
from .noop import measure_flattening
from .spec import ANCHOR, ANCHOR_PAIR, BESIDE, LEFT_SHARE, SPEC, Timing, Traced, beside_name, setting_label

MASK_RATE = 0.15


def make_batch(vocab_size: int, batch: int, seq: int, seed: int) -> dict[str, np.ndarray]:
    """A deterministic masked-LM batch: random tokens, ~15% of positions to predict (labels -1 elsewhere)."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, vocab_size, (batch, seq), dtype=np.int32)
    predict = rng.random((batch, seq)) < MASK_RATE
    predict[:, 0] = True  # every row has a target, so the loss is never 0/0
    return {
        "input_ids": ids,
        "attention_mask": np.ones((batch, seq), dtype=np.int32),
        "labels": np.where(predict, ids, -1).astype(np.int32),
    }


def mlm_loss(model, batch: dict[str, jax.Array], key: jax.Array) -> jax.Array:
    """Mean cross-entropy over the positions to predict; `key` drives dropout."""
    keys = jax.random.split(key, batch["input_ids"].shape[0])
    logits = jax.vmap(model)(batch["input_ids"], batch["attention_mask"], keys)
    labels = batch["labels"]
    ce = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.maximum(labels, 0))
    weight = (labels >= 0).astype(ce.dtype)
    return jnp.sum(ce * weight) / jnp.sum(weight)


def _update(optimizer, params, grads, opt_state):
    """Equinox's idiom: the optimizer sees only the arrays (older optax rejects other leaves)."""
    updates, opt_state = optimizer.update(grads, opt_state, eqx.filter(params, eqx.is_array))
    return eqx.apply_updates(params, updates), opt_state


class _Stepper:
    """One variant's state, stepped on the next pre-made key."""

    def __init__(self, fn, state: tuple, batch, keys: list[jax.Array], static_argnums=(), extra=()):
        self.fn, self.state, self.batch, self.keys = fn, state, batch, keys
        self.static_argnums, self.extra = static_argnums, extra
        self.calls = [0]

    def args(self) -> tuple:
        return (*self.state, self.batch, self.keys[self.calls[0] % len(self.keys)], *self.extra)

    def step(self) -> jax.Array:
        args = self.args()
        *state, loss = self.fn(*args)
        self.state = tuple(state)
        self.calls[0] += 1
        return loss

    def signature(self) -> dict[str, Any]:
        """Of the next call; keeps nothing of past calls (a training state is large)."""
        leaves_out = len(jax.tree_util.tree_leaves(self.state)) + 1  # the state, then the loss
        return call_signature(self.fn, self.args(), leaves_out, self.static_argnums)

    def runner(self, name: str) -> Runner:
        return Runner(name=name, step=self.step, signature=self.signature, calls=self.calls)


def train_state(model, lr: float = 1e-4):
    """Every variant's start: optimizer, the model's arrays and static part, optimizer state."""
    optimizer = optax.adamw(lr)
    params, static = eqx.partition(model, eqx.is_array)
    return optimizer, params, static, optimizer.init(params)


_as_train_step = program_named("train_step")  # every variant's step


def build_runners(model, batch: dict[str, jax.Array], keys: list[jax.Array]) -> dict[str, Runner]:
    """The four variants, sharing model, optimizer state, batch and keys."""
    optimizer, params, static, opt_state = train_state(model)

    def model_step(model, opt_state, batch, key):
        loss, grads = eqx.filter_value_and_grad(mlm_loss)(model, batch, key)
        model, opt_state = _update(optimizer, model, grads, opt_state)
        return model, opt_state, loss

    def params_step(params, opt_state, batch, key, static):
        loss, grads = jax.value_and_grad(lambda p: mlm_loss(eqx.combine(p, static), batch, key))(params)
        params, opt_state = _update(optimizer, params, grads, opt_state)
        return params, opt_state, loss

    def closure_step(params, opt_state, batch, key):
        return params_step(params, opt_state, batch, key, static)

    flat, treedef = jax.tree_util.tree_flatten((params, opt_state))

    def flat_step(flat, batch, key):
        params, opt_state = jax.tree_util.tree_unflatten(treedef, flat)
        params, opt_state, loss = params_step(params, opt_state, batch, key, static)
        return jax.tree_util.tree_leaves((params, opt_state)), loss

    filter_jit_step = eqx.filter_jit(_as_train_step(model_step))
    jit_partition_step = jax.jit(_as_train_step(closure_step))
    jit_static_arg_step = jax.jit(_as_train_step(params_step), static_argnums=4)
    jit_flat_step = jax.jit(_as_train_step(flat_step))

    steppers = {
        "filter_jit": _Stepper(filter_jit_step, (model, opt_state), batch, keys),
        "jit_partition": _Stepper(jit_partition_step, (params, opt_state), batch, keys),
        "jit_flat": _Stepper(jit_flat_step, (flat,), batch, keys),
        "jit_static_arg": _Stepper(jit_static_arg_step, (params, opt_state), batch, keys,
                                   static_argnums=(4,), extra=(static,)),
    }
    return {name: s.runner(name) for name, s in steppers.items()}


def prepare(conf: dict[str, Any], model_dir: str, n_keys: int = 4):
    """Model, device-resident batch and keys, made before any timer starts."""
    from ...models.checkpoint import load_model

    model, config = load_model(model_dir, dropout=conf["dropout"], attention=conf["attention"])
    batch = make_batch(config.vocab_size, conf["batch"], conf["seq"], seed=0)
    batch = jax.device_put({k: jnp.asarray(v) for k, v in batch.items()})
    keys = list(jax.random.split(jax.random.key(0), n_keys))
    return model, batch, keys


@dataclass
class _Ready:
    """A configuration's warmed variants and the checks that must hold before timing."""

    model: Any
    batch: dict[str, jax.Array]
    runners: dict[str, Runner]
    compiles: dict[str, int]
    losses: dict[str, np.ndarray]
    agreement: dict[str, Any]
    signatures: dict[str, dict[str, Any]]
    distinct: dict[str, Any]


def _ready(conf: dict[str, Any], model_dir: str, settings: Timing, names: dict[str, str] | None = None,
           reference: str = SPEC.floor) -> _Ready:
    """Build and warm `names` (recorded name -> variant; default all); check losses against `reference`, signatures."""
    model, batch, keys = prepare(conf, model_dir)
    built = build_runners(model, batch, keys)
    names = names or {name: name for name in built}
    runners = {name: replace(built[variant], name=name) for name, variant in names.items()}
    compiles, losses = warm_up(runners, settings.warmup_steps, settings.steps_per_sample)
    agreement = require_agree(losses, reference, exact=jax.default_backend() == "cpu")
    signatures = {name: r.signature() for name, r in runners.items()}
    return _Ready(model, batch, runners, compiles, losses, agreement, signatures, require_distinct(signatures))


def _records(ready: _Ready) -> dict[str, dict[str, Any]]:
    return {name: {"signature": ready.signatures[name], "calls": r.calls[0], "compiles_in_warmup": ready.compiles[name]}
            for name, r in ready.runners.items()}


def _beside(conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, _Ready]:
    """Pairs timed beside the variants: the base's where anchored, each `beside` setting's at the base."""
    groups = {}
    if "anchor" in conf:
        groups["anchor"] = _ready(conf["anchor"], inputs["anchor_model"], settings, ANCHOR, reference=ANCHOR_PAIR[1])
    for setting in conf.get("beside", []):
        names = {beside_name(variant, setting): variant for variant in BESIDE}
        groups[f"beside_{setting_label(setting)}"] = _ready(conf | setting, inputs["model"], settings, names,
                                                            reference=beside_name(BESIDE[1], setting))
    return groups


def _beside_pairs(key: str, pair: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    """A beside pair's overhead, and its shift from this configuration's by round (drift between rounds cancels)."""
    own, theirs = difference_side(*BESIDE), difference_side(*pair)
    return pair, ((own, theirs) if key == "anchor" else (theirs, own))


def run(conf: dict[str, Any], inputs: dict[str, str], settings: Timing) -> dict[str, Any]:
    """One configuration: verify, time the training modes and `_beside`'s pairs; at the base, `infer`, `flatten`."""
    ready, beside = _ready(conf, inputs["model"], settings), _beside(conf, inputs, settings)
    model = ready.model
    blocked_pairs = (LEFT_SHARE, *(pair for key, group in beside.items()
                                   for pair in _beside_pairs(key, tuple(group.runners))))
    modes = measure(ready.runners, SPEC.floor, settings.sampling, settings.steps_per_sample, conf["id"],
                    SPEC.extra_pairs, {name: r for group in beside.values() for name, r in group.runners.items()},
                    blocked_pairs)
    variants = _records(ready)
    checks = {"outputs_agree": ready.agreement | {"outputs": "loss trajectory over the warmup steps"},
              "signatures_distinct": ready.distinct}
    for key, group in beside.items():
        variants |= _records(group)
        checks |= {f"{key}_outputs_agree": group.agreement | {"outputs": "the pair's loss trajectory over the "
                                                                         "warmup steps"},
                   f"{key}_signatures_distinct": group.distinct}
    if is_base(conf):
        add_mode(modes, variants, checks, measure_inference(model, ready.batch, settings.sampling, conf["id"]))
        _, params, _, opt_state = train_state(model)
        add_mode(modes, variants, checks, measure_flattening(params, opt_state, settings.sampling, conf["id"]))
    arrays = jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array))
    return result_document(
        SPEC.floor, modes, variants, checks,
        trajectory={name: losses.tolist() for name, losses in ready.losses.items()},
        structure={"model_leaves": len(jax.tree_util.tree_leaves(model)), "array_leaves": len(arrays),
                   "parameters": sum(x.size for x in arrays)},
    )


def samplers(conf: dict[str, Any], inputs: dict[str, str], settings: Timing,
             variants: Sequence[str] = ()) -> tuple[dict[str, dict[str, Sampler]], dict[str, Any]]:
    """The training modes' samplers after `run`'s checks, for a lockstep; only `variants` (where it names some) and
    the floor, the outputs' reference, compiled: compiling is most of a worker's start."""
    kept = [v for v in SPEC.variants if not variants or v in variants]
    ready = _ready(conf, inputs["model"], settings, {v: v for v in SPEC.variants if v in kept or v == SPEC.floor})
    runners = {v: ready.runners[v] for v in kept}
    return mode_samplers(runners, settings.steps_per_sample), {"signatures": {v: ready.signatures[v] for v in kept}}


def trace(conf: dict[str, Any], inputs: dict[str, str], settings: Traced, out_dir: str) -> str:
    """The traced pass: warm every variant, then trace a few blocked steps of each."""
    runners = build_runners(*prepare(conf, inputs["model"]))
    warm_up(runners, settings.warmup_steps, settings.steps_per_sample)
    return tracing.capture(runners, settings.trace_steps, out_dir, settings.captures)

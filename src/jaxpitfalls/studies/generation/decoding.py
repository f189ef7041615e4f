"""Five ways to greedy-decode with GPT-2:

- `uncached_eager`: the whole sequence each step, un-jitted;
- `uncached`: the same, jitted, a program per length (the baseline);
- `uncached_padded`: padded to the final length (masked): one program;
- `kv_cache`: prefill, then a jitted one-token step on a donated cache;
- `kv_cache_scan`: prefill and the decode loop in one jitted `lax.scan`.

Sizes are static: a shorter warmup leaves programs to compile.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from ...models.gpt2 import GPT2LMHeadModel


class _Counted:
    """A fresh jitted function counting its calls: a new closure each time, since jax.jit caches per function."""

    def __init__(self, fn: Callable, **jit_kwargs) -> None:
        self.fn = jax.jit(lambda *args: fn(*args), **jit_kwargs)
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


class Decoder:
    """One variant: `build()` new jitted functions, `generate(prompt, new)` the greedy tokens (numpy)."""

    name = ""

    def __init__(self, model: GPT2LMHeadModel) -> None:
        self.model = model
        self.functions: list[_Counted] = []
        self.build()

    def build(self) -> None:
        raise NotImplementedError

    @property
    def calls(self) -> int:
        """Calls of its jitted functions (uncached_eager: of its un-jitted forward)."""
        return sum(f.calls for f in self.functions)

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        raise NotImplementedError


def _eager_step(model, ids: np.ndarray) -> int:
    """The next token from the whole sequence under `jax.disable_jit()`: op by op, cached per shape, unfused."""
    with jax.disable_jit():
        return int(jnp.argmax(model.logits(jnp.asarray(ids))[-1]))


class UncachedEager(Decoder):
    """The uncached loop un-jitted; its op programs are cached process-wide, so the warmup demonstration omits it."""

    name = "uncached_eager"

    def build(self) -> None:
        self.functions = []
        self.forward_calls = 0

    @property
    def calls(self) -> int:
        return self.forward_calls

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        ids = list(prompt)
        for _ in range(new):
            self.forward_calls += 1
            ids.append(_eager_step(self.model, np.asarray(ids, dtype=np.int32)))
        return np.asarray(ids[len(prompt):], dtype=np.int32)


class Uncached(Decoder):
    name = "uncached"

    def build(self) -> None:
        self.step = _Counted(lambda model, ids: jnp.argmax(model.logits(ids)[-1]))
        self.functions = [self.step]

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        ids = list(prompt)
        for _ in range(new):
            ids.append(int(self.step(self.model, np.asarray(ids, dtype=np.int32))))
        return np.asarray(ids[len(prompt):], dtype=np.int32)


class UncachedPadded(Decoder):
    name = "uncached_padded"

    def build(self) -> None:
        self.step = _Counted(lambda model, ids, length: jnp.argmax(model.logits(ids, length)[length - 1]))
        self.functions = [self.step]

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        ids = np.zeros(len(prompt) + new, dtype=np.int32)
        ids[: len(prompt)] = prompt
        for t in range(len(prompt), len(ids)):
            ids[t] = int(self.step(self.model, ids, np.int32(t)))
        return ids[len(prompt):]


def _prefill(model, ids, max_len: int):
    logits, cache = model.prefill(ids, max_len)
    return jnp.argmax(logits), cache


def _decode(model, token, position, cache):
    logits, cache = model.decode(token, position, cache)
    return jnp.argmax(logits), cache


class KVCache(Decoder):
    name = "kv_cache"

    def build(self) -> None:
        self.prefill = _Counted(_prefill, static_argnums=2)
        self.decode = _Counted(_decode, donate_argnums=3)
        self.functions = [self.prefill, self.decode]

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        token, cache = self.prefill(self.model, prompt, len(prompt) + new)
        tokens = [token]
        for position in range(len(prompt), len(prompt) + new - 1):
            token, cache = self.decode(self.model, token, np.int32(position), cache)
            tokens.append(token)
        return np.asarray(jax.device_get(tokens), dtype=np.int32)  # the one wait, after all are dispatched


def _scan_generate(model, prompt, new: int):
    token, cache = _prefill(model, prompt, prompt.shape[0] + new)

    def step(carry, position):
        token, cache = carry
        token, cache = _decode(model, token, position, cache)
        return (token, cache), token

    positions = prompt.shape[0] + jnp.arange(new - 1)
    _, rest = jax.lax.scan(step, (token, cache), positions)
    return jnp.concatenate([token[None], rest])


class KVCacheScan(Decoder):
    name = "kv_cache_scan"

    def build(self) -> None:
        self.loop = _Counted(_scan_generate, static_argnums=2)
        self.functions = [self.loop]

    def generate(self, prompt: np.ndarray, new: int) -> np.ndarray:
        # waited for through jax.device_get, as kv_cache's: np.asarray waits in C++, and the trace gave the whole
        # scanned program's run to this Python loop (99.7% `python_loop` for a loop that is one program)
        return np.asarray(jax.device_get(self.loop(self.model, prompt, new)), dtype=np.int32)


DECODERS = {d.name: d for d in (UncachedEager, Uncached, UncachedPadded, KVCache, KVCacheScan)}

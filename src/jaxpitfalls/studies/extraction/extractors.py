"""Seven ways to extract a decoder's activations, cumulative as the write-up's phases, storing the real tokens' rows
of each requested layer:

- `eager`: op by op, a blocking copy per sample and layer;
- `jit`: jitted; a ragged last batch compiles a second program;
- `jit_padded`: that batch padded (masked): one program;
- `jit_padded_stacked`: one blocking copy per batch;
- `jit_padded_async`: that copy started at dispatch;
- `pipelined`: batch i+1 dispatched before batch i is stored;
- `scanned`: up to MAX_SCAN_CHUNK batches per jitted `lax.scan` (the last chunk masked-filled).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

Batch = tuple[np.ndarray, np.ndarray, list[int]]  # ids (b, s), mask (b, s), real lengths


def hidden_states(model, ids, mask, layers: tuple[int, ...]):
    """The requested layers' hidden states of a batch, stacked: (layers, batch, seq, hidden)."""
    _, hidden = jax.vmap(model)(ids, mask)
    return jnp.stack([hidden[i] for i in layers])


def batches(sequences: list[np.ndarray], batch_size: int, length: int, padded: bool) -> list[Batch]:
    """Consecutive batches right-padded with zeros to `length` and masked; `padded`: the ragged last one filled too."""
    out = []
    for start in range(0, len(sequences), batch_size):
        chunk = sequences[start:start + batch_size]
        rows = batch_size if padded else len(chunk)
        ids = np.zeros((rows, length), dtype=np.int32)
        mask = np.zeros((rows, length), dtype=np.int32)
        for i, s in enumerate(chunk):
            ids[i, :len(s)] = s
            mask[i, :len(s)] = 1
        out.append((ids, mask, [len(s) for s in chunk]))
    return out


class Extractor:
    """One variant: `run(batches, out_dir)` extracts and stores a whole dataset, timing its phases."""

    name = ""
    padded = True  # batches with one fixed shape, the ragged last one's rows padded

    def __init__(self, model, layers: tuple[int, ...]) -> None:
        self.model, self.layers = model, layers
        self.forward = self._compiled()
        self.seconds = {"forward": 0.0, "transfer": 0.0, "storage": 0.0}
        self.counts = {"forward_calls": 0, "host_copies": 0, "async_copies": 0, "max_in_flight": 0}

    def _compiled(self) -> Callable:
        return jax.jit(lambda model, ids, mask: hidden_states(model, ids, mask, self.layers))

    def _timed(self, phase: str, fn: Callable):
        start = time.perf_counter()
        out = fn()
        self.seconds[phase] += time.perf_counter() - start
        return out

    def dispatch(self, batch: Batch):
        self.counts["forward_calls"] += 1
        return self.forward(self.model, jnp.asarray(batch[0]), jnp.asarray(batch[1]))

    def to_host(self, acts) -> list[list[np.ndarray]]:
        """Per sample and layer, a blocking copy: [layer][sample] arrays of (seq, hidden)."""
        self.counts["host_copies"] += acts.shape[0] * acts.shape[1]
        return [[np.asarray(acts[j, i]) for i in range(acts.shape[1])] for j in range(acts.shape[0])]

    def store(self, host, lengths: list[int], index: int, out_dir: Path) -> None:
        for j, layer in enumerate(self.layers):
            rows = np.concatenate([host[j][i][:n] for i, n in enumerate(lengths)])
            np.save(out_dir / f"layer{layer}_batch{index:04d}.npy", rows)

    def run(self, data: list[Batch], out_dir: Path) -> None:
        self.counts["max_in_flight"] = max(self.counts["max_in_flight"], 1)
        for index, (ids, mask, lengths) in enumerate(data):
            acts = self._timed("forward", lambda b=(ids, mask, lengths): jax.block_until_ready(self.dispatch(b)))
            host = self._timed("transfer", lambda a=acts: self.to_host(a))
            self._timed("storage", lambda h=host, n=lengths, i=index: self.store(h, n, i, out_dir))


class Eager(Extractor):
    name = "eager"
    padded = False

    def _compiled(self) -> Callable:
        return lambda model, ids, mask: hidden_states(model, ids, mask, self.layers)


class Jit(Extractor):
    name = "jit"
    padded = False


class JitPadded(Extractor):
    name = "jit_padded"


class JitPaddedStacked(Extractor):
    name = "jit_padded_stacked"

    def to_host(self, acts) -> np.ndarray:
        """One copy of the batch's stacked activations, read once: (layers, batch, seq, hidden)."""
        self.counts["host_copies"] += 1
        return np.asarray(acts)

    def store(self, host, lengths: list[int], index: int, out_dir: Path) -> None:
        super().store([[host[j, i] for i in range(host.shape[1])] for j in range(host.shape[0])], lengths, index,
                      out_dir)


class JitPaddedAsync(JitPaddedStacked):
    name = "jit_padded_async"

    def dispatch(self, batch: Batch):
        """The forward, its one copy to the host started at once (`to_host` reads it)."""
        acts = super().dispatch(batch)
        acts.copy_to_host_async()
        self.counts["async_copies"] += 1
        return acts


class Pipelined(JitPaddedAsync):
    name = "pipelined"

    def run(self, data: list[Batch], out_dir: Path) -> None:
        self.counts["max_in_flight"] = 2 if len(data) > 1 else 1
        pending = self._timed("forward", lambda: self.dispatch(data[0]))
        for index in range(len(data)):
            current = pending
            if index + 1 < len(data):  # batch i+1 goes to the device before batch i is stored
                pending = self._timed("forward", lambda i=index: self.dispatch(data[i + 1]))
            host = self._timed("transfer", lambda a=current: self.to_host(a))
            self._timed("storage", lambda h=host, i=index: self.store(h, data[i][2], i, out_dir))


MAX_SCAN_CHUNK = 8  # batches per scanned call at most: their activations are on the device at once


def scan_chunks(data: list[Batch]) -> list[tuple[np.ndarray, np.ndarray, list[list[int]]]]:
    """Equal chunks of at most MAX_SCAN_CHUNK batches, stacked: ids, mask (k, b, s), and the real batches' lengths."""
    n_chunks = -(-len(data) // MAX_SCAN_CHUNK)
    size = -(-len(data) // n_chunks)
    empty = (np.zeros_like(data[0][0]), np.zeros_like(data[0][1]))
    out = []
    for start in range(0, len(data), size):
        chunk = data[start:start + size]
        filled = [b[:2] for b in chunk] + [empty] * (size - len(chunk))
        out.append((np.stack([f[0] for f in filled]), np.stack([f[1] for f in filled]), [b[2] for b in chunk]))
    return out


class Scanned(Pipelined):
    name = "scanned"

    def _compiled(self) -> Callable:
        def scan(model, ids, mask):
            def body(carry, batch):
                return carry, hidden_states(model, batch[0], batch[1], self.layers)

            return jax.lax.scan(body, None, (ids, mask))[1]  # (k, layers, batch, seq, hidden)

        return jax.jit(scan)

    def run(self, data: list[Batch], out_dir: Path) -> None:
        chunks = scan_chunks(data)
        self.counts["max_in_flight"] = 2 if len(chunks) > 1 else 1
        pending = self._timed("forward", lambda: self.dispatch(chunks[0]))
        index = 0
        for c, (_, _, lengths) in enumerate(chunks):
            current = pending
            if c + 1 < len(chunks):  # chunk c+1 goes to the device before chunk c is stored
                pending = self._timed("forward", lambda n=c + 1: self.dispatch(chunks[n]))
            host = self._timed("transfer", lambda a=current: self.to_host(a))
            for j, n in enumerate(lengths):
                self._timed("storage", lambda h=host[j], n=n, i=index: self.store(h, n, i, out_dir))
                index += 1


EXTRACTORS = {e.name: e for e in (Eager, Jit, JitPadded, JitPaddedStacked, JitPaddedAsync, Pipelined, Scanned)}

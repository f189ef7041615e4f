"""extraction: activation extraction from a Qwen2-style decoder, measured phase by phase.

The write-up (seeds/001) only estimated what fixing its extraction loop would gain: JIT 5-10x, fixed-shape
padding 2x (no recompiling on the ragged last batch), async batched copies 2-3x, pipelining 1.5-2x, 4-7x
overall, one stacked copy of all layers ("vectorizing") ~1.5x, and lax.scan over batches 1.3x on multihost.
Seven real code paths (`extractors`: eager, jit, jit_padded, jit_padded_stacked, jit_padded_async, pipelined,
scanned) extract every hidden state (embeddings and each layer) of a
dataset of real-text sequences of varying length, each padded to one fixed length as the write-up's loop does,
whose last batch is ragged (fewer rows), and store the real tokens' rows in .npy files. After the timed passes, each
job probes two of the write-up's statements: that jax.device_get returns immediately (device_get.py) and what
donating the parameters frees (donation.py).

One sample is one whole pass over the dataset, storage included; the first pass of each variant is its
warmup and is reported apart (it holds the compilations: two batch shapes for `jit`, the full batches' and
the ragged last one's, one for the padded variants, per operation and shape for `eager`).

What must hold: every variant stores the same activations (bitwise where the arithmetic is the same,
within float tolerance across padding and eager/jit), and no two record the same signature.
"""

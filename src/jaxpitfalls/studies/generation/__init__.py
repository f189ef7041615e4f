"""generation: greedy decoding with and without a KV cache, and the insufficient-warmup pitfall.

The write-up (seeds/004) measured GPT-2 generation ~16x faster with a KV cache under JIT, and showed how a
warmup with fewer tokens than the timed run left programs to compile inside the timed region, which made
its first measurement of the speedup wrong by "6.8x" (its words: 16.32x / 2.44x is 6.7x). Five real code
paths decode the same prompt (`decoding`): `uncached_eager` (the whole sequence each token, un-jitted),
`uncached` (the same, jitted: one program per length, the write-up's "Non-Cached" path and the cache's
baseline), `uncached_padded`, `kv_cache` and `kv_cache_scan`; each sample is one whole generation of
`new_tokens` tokens after a prompt of `prompt` tokens of real text.

The pitfall is its own configuration axis: `warmup_fraction` below 1 warms up with that fraction of the
tokens, on fresh programs before every sample, as the write-up's short warmup did (its non-cached baseline
nearly kept its speed, so the distortion is judged with the baseline held at its proper time). The compile
guard then counts the compilations inside the timed region instead of failing; such a configuration is
labelled a demonstration, kept out of the speed tables, and reported beside the proper one.

What must hold: every variant generates the same tokens (the tests also compare them with PyTorch's
`generate`), and no two record the same signature (jitted calls and compilations per generation).
"""

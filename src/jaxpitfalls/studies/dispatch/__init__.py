"""dispatch: the per-step cost of `eqx.filter_jit` against `jax.jit` with partition/combine.

The write-up (seeds/000) found `filter_jit` ~47 ms slower per BERT training step because it partitions
its arguments before and combines its outputs after every call, outside the compiled program, and that
the cost depends on the model's structure (pytree leaves), not on its computation. Four real code paths
run the same AdamW masked-LM step:

- `filter_jit`: `@eqx.filter_jit` on (model, opt_state, batch, key), as in the write-up;
- `jit_partition`: `eqx.partition` once, `jax.jit` on (params, ...), `eqx.combine` inside with the
  static part captured by closure (the write-up's fix);
- `jit_flat`: the leaves flattened once, `jax.jit` on the flat list, unflattened inside (Equinox's
  low-overhead training loop): the floor the others are measured against;
- `jit_static_arg`: the static part passed as a static argument, hashed on every call.

A forward-only mode (`infer`) times the write-up's hybrid advice, filter_jit for inference: filter_jit and
jit_partition each return the batch's logits from the untrained model, dropout off, with no model or optimizer
state to rebuild. A `flatten` mode times jax.jit's handling of its arguments alone: a jitted no-op on
jit_partition's arguments (the model's arrays and optimizer state) against the same on jit_flat's flat list.

What must hold: all four produce the same loss trajectory for the same keys (bitwise on CPU), and no two
record the same dispatch signature; the two forwards give the same logits, and the two no-ops the same scalar
(bitwise on CPU), by different signatures.
"""

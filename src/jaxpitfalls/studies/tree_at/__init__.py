"""tree_at: batched tree manipulation when setting a model up for tensor parallelism.

The write-ups (seeds/002, seeds/003) found that applying a tensor-parallel plan with one `eqx.tree_at`
per matched module costs 7.6x more than one batched `eqx.tree_at` (130 ms vs 17 ms, BERT-4L-768H, 24
transforms), that the whole start-up (`make_module_opt`: apply the plan, shard, create the optimizer
state, under JIT) scales near-linearly with the number of transforms in its first run, and that under JIT
the batching no longer matters once compiled. Two real code paths apply the same plan:

- `unbatched`: one `eqx.tree_at` per match, shortest path first;
- `batched`: every match in one `eqx.tree_at` call with a list of getters.

Each is measured in three modes: `direct` (applying the plan, outside JIT), `first_run` (a fresh
`eqx.filter_jit` of `make_module_opt`: trace + compile + execute, compilation cache off; a labelled
compile-measuring mode) and `steady` (the compiled `make_module_opt` called again); at the base
configuration also `step_by_step` (`make_module_opt` un-jitted, each of its four steps blocked and timed,
as the write-up's table: where an un-jitted start-up spends its time, and what jitting it buys). The
direct mode's rounds also time a reference workload (the model's pytree rebuilt, the same work every call):
its spread is what the run's conditions put on any workload in those rounds (the `variance` claim's bound).

What must hold: both give identical trees (structure, values, sharding of every leaf), and each records
the `tree_at` calls it made (N vs 1): two variants with the same count ran the same code.
"""

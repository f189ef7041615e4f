"""toy: `jax.jit` against eager dispatch of one small function (a study of one's own: one
folder outside the package, named by the config's `study_folders`, and one config block; docs/adding-a-study.md
walks through it, and tests/test_new_study.py runs it through every rule).

Both variants compute the Gram matrix of tanh(x) for the model's first array leaf; they must agree, and
their signatures (jitted or not) must differ.
"""

"""toy: `jax.jit` against eager dispatch of one small function (a throwaway study that tests/test_new_study.py
adds to a copy of the workflow, to prove that a study is one folder and one config block).

Both variants compute the Gram matrix of tanh(x) for the model's first array leaf; they must agree, and
their signatures (jitted or not) must differ.
"""

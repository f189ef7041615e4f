"""Shared fixtures: tiny checkpoints made once per session (random init, fixed seed, like prepare_model), and
one smoke run of the real workflow that every test reading it shares."""

from __future__ import annotations

import fcntl
import sys

import pytest
from configs import SMOKE_XLA_FLAGS
from workflow_copy import copy_workflow, snakemake

from jaxpitfalls.runtime import set_xla_flags

# The tests check what the code computes, never how fast it runs: they compile with the smoke preset's XLA flags
# (its comment says why), set before JAX starts, here and in every process the tests start (workflow runs
# record them in their results' environment).
set_xla_flags(SMOKE_XLA_FLAGS)

TINY_BERT = dict(seed=0, vocab_size=64, hidden=16, head_dim=8, layers=1, intermediate_ratio=2, max_positions=32)
TINY_QWEN2 = dict(seed=0, vocab_size=300, hidden=32, head_dim=8, kv_groups=2, layers=2, intermediate_ratio=2,
                  max_positions=64)
TINY_GPT2 = dict(seed=0, vocab_size=300, hidden=32, head_dim=8, layers=2, max_positions=64)


def _checkpoint(tmp_path_factory, family: str, spec: dict, name: str):
    from jaxpitfalls.models import checkpoint

    path = tmp_path_factory.mktemp("models") / name
    checkpoint.save_random_init(family, spec, path)
    return path


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory):
    return _checkpoint(tmp_path_factory, "bert", TINY_BERT, "bert-L1-H16")


@pytest.fixture(scope="session")
def tiny_gpt2_dir(tmp_path_factory):
    return _checkpoint(tmp_path_factory, "gpt2", TINY_GPT2, "gpt2-L2-H32")


@pytest.fixture(scope="session")
def tiny_qwen2_dir(tmp_path_factory):
    return _checkpoint(tmp_path_factory, "qwen2", TINY_QWEN2, "qwen2-L2-H32")


@pytest.fixture(scope="session")
def tiny_corpus_dir(tmp_path_factory):
    """prepare_data's output on one package's README, within the tiny models' vocabulary (300)."""
    from jaxpitfalls import data

    path = tmp_path_factory.mktemp("data") / "corpus"
    data.prepare(["jax"], 300, path)
    return path


def build_tiny_runners(model_dir):
    """The dispatch study's four variants on the tiny BERT, not yet called."""
    from jaxpitfalls.studies.dispatch import measure as dispatch

    conf = dict(layers=1, hidden=16, batch=2, seq=16, dropout=0.1, attention="explicit", id="t")
    return dispatch.build_runners(*dispatch.prepare(conf, str(model_dir)))


@pytest.fixture(scope="session")
def tiny_runners(tiny_bert_dir):
    """The tiny runners built once (their programs compile once), for tests that call them warm."""
    return build_tiny_runners(tiny_bert_dir)


@pytest.fixture(autouse=True)
def _figures_closed():
    """Each test's figures closed after it: a worker's files run one after another in one process, and pyplot keeps
    every figure a test drew without closing it (matplotlib warns past 20)."""
    yield
    if (pyplot := sys.modules.get("matplotlib.pyplot")) is not None:
        pyplot.close("all")


# The smoke run checks what the jobs compute, never how fast: profiles/smoke runs two timing jobs at a time, one
# core each (171 -> 99 s of jobs on 2 cores), where `make all` gives each the machine. Its preset keeps contended
# rounds, marked. A user's smoke run (the README's command) is the same.
SIDE_BY_SIDE = ("--workflow-profile", "profiles/smoke")


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, worker_id):
    """presets/smoke.yaml run once per session, in a copy of the workflow (workflow_copy.py): under pytest-xdist
    by the first worker that asks, the others waiting on its lock. Tests only read it; a test that runs
    snakemake copies it first (shutil.copytree keeps it up to date: the rules' inputs are paths relative to the
    workflow's directory), so tests run side by side never see another's edit."""
    shared = tmp_path_factory.getbasetemp()
    shared = shared if worker_id == "master" else shared.parent  # every worker's directory is under one root
    workdir, failed = shared / "smoke-run", shared / "smoke-run.failed"
    with open(shared / "smoke-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            raise AssertionError(f"the shared smoke run failed in another worker:\n{failed.read_text()}")
        if not (shared / "smoke-run.done").exists():
            try:
                workdir.mkdir()
                snakemake(copy_workflow(workdir), "--cores", "all", *SIDE_BY_SIDE)
            except AssertionError as error:
                failed.write_text(str(error))
                raise
            (shared / "smoke-run.done").touch()
    return workdir


# pytest-xdist hands a worker one file at a time in collection order (`--no-loadscope-reorder`, else it orders files
# by their number of tests): the longest first, so no worker is left alone with one at the end. The Slurm test waits
# on its cluster's polls more than it computes, so it runs beside others' work; the smoke run is made first.
LONGEST_FIRST = ("test_workflow_smoke.py", "test_slurm.py", "test_lockstep_workflow.py", "test_revisions.py",
                 "test_history_workflow.py", "test_examples.py")


def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the other files keep their order

"""The protocol's guards: compilation in a timed region, variants that are not different, outputs that
disagree. Each must fail loudly rather than produce a number."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpitfalls.harness import protocol
from jaxpitfalls.harness.compiles import CompiledInTimedRegion, count_compiles
from jaxpitfalls.harness.sampling import Sampling
from jaxpitfalls.harness.variants import (
    VariantOutputsDisagree,
    VariantsIndistinguishable,
    require_agree,
    require_distinct,
)


def test_compile_counter_sees_a_new_program_and_not_a_cached_one():
    f = jax.jit(lambda x: x * 2 + 1)
    x = jnp.ones(3)
    with count_compiles() as first:
        f(x).block_until_ready()
    with count_compiles() as second:
        f(x).block_until_ready()
    assert first.count >= 1 and second.count == 0


def _runner(name, fn):
    state = {"n": 0}

    def step():
        state["n"] += 1
        return fn(state["n"])

    return protocol.Runner(name=name, step=step, signature=lambda: {"name": name})


def test_measure_fails_when_a_timed_region_compiles():
    steady = jax.jit(lambda x: x + 1)
    x = jnp.ones(4)
    runners = {
        "steady": _runner("steady", lambda n: steady(x)),
        # a new shape every call: the insufficient-warmup pitfall, compiling inside the timed region
        "growing": _runner("growing", lambda n: jax.jit(lambda y: y * 2)(jnp.ones(n + 100))),
    }
    protocol.warm_up(runners, steps=1, steps_per_sample=1)
    with pytest.raises(CompiledInTimedRegion, match="growing"):
        protocol.measure(runners, floor="steady", sampling=Sampling(rounds=2, on_contention="warn"),
                         steps_per_sample=1, label="guard")


def test_variants_that_ran_the_same_code_are_refused():
    same = {"callable": "PjitFunction", "leaves_in": 10}
    with pytest.raises(VariantsIndistinguishable, match="'a' and 'b'"):
        require_distinct({"a": same, "b": dict(same), "c": {"callable": "other"}})
    assert require_distinct({"a": same, "c": {"callable": "other"}, "d": {"callable": "third"}}, [("a", "c")]) == {
        "variants": 3, "pairs_compared": 1, "distinct_signatures": 3}  # what it compared and found


def test_outputs_must_agree_bitwise_or_within_tolerance():
    ref = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    close = ref + np.float32(1e-7)
    assert require_agree({"a": ref, "b": ref.copy()}, "a", exact=True) == {
        "reference": "a", "compared": "bitwise", "values": 3, "max_abs_difference": {"a": 0.0, "b": 0.0},
        "bitwise_equal": {"a": True, "b": True}}
    with pytest.raises(VariantOutputsDisagree):
        require_agree({"a": ref, "b": close}, "a", exact=True)
    found = require_agree({"a": ref, "b": close}, "a", exact=False)
    assert found["compared"] == "within rtol=0.00001, atol=0.000001"
    assert found["bitwise_equal"] == {"a": True, "b": False}
    assert 0 < found["max_abs_difference"]["b"] < 1e-6
    with pytest.raises(VariantOutputsDisagree):
        require_agree({"a": ref, "b": ref * 1.1}, "a", exact=False)


def test_xla_flags_are_refused_once_jax_has_started():
    from jaxpitfalls import runtime

    runtime.set_xla_flags("")  # nothing to set: fine at any time
    flags = os.environ["XLA_FLAGS"]
    runtime.set_xla_flags("--xla_backend_optimization_level=0")  # already set (tests/conftest.py): nothing to add
    assert os.environ["XLA_FLAGS"] == flags and flags.count("--xla_backend_optimization_level=0") == 1
    with pytest.raises(RuntimeError, match="before JAX is imported"):
        runtime.set_xla_flags("--xla_force_host_platform_device_count=2")


def test_nested_compile_counters_each_see_their_own_block():
    f = jax.jit(lambda x: x - 3)
    with count_compiles() as outer:
        with count_compiles() as inner:
            pass  # equal fields, distinct counters: closing this one must not close the outer one
        f(jnp.ones(5)).block_until_ready()
    assert inner.count == 0 and outer.count >= 1


def test_a_thread_only_counter_ignores_compilations_other_threads_ask_for():
    import threading

    x = jnp.ones(6)  # made before the counters: eager ops compile too
    elsewhere = threading.Thread(target=lambda: jax.jit(lambda y: y * 5)(x).block_until_ready())
    with count_compiles(this_thread=True) as mine, count_compiles() as every:
        elsewhere.start()
        elsewhere.join()
        jax.jit(lambda y: y * 7)(x).block_until_ready()
    assert mine.count == 1 and every.count == 2


def test_first_calls_give_each_variant_its_output_and_its_own_compilations():
    """Run side by side, each call's compilations are its own: one program for `one`, two for `two`."""
    from jaxpitfalls.harness.compiles import first_calls

    x = jnp.arange(4.0)
    calls = {"one": lambda: jax.jit(lambda y: y + 1)(x),
             "two": lambda: jax.jit(lambda y: y * 3)(jax.jit(lambda y: y - 1)(x))}
    firsts = first_calls(calls)
    assert list(firsts) == ["one", "two"]
    np.testing.assert_array_equal(firsts["one"][0], [1, 2, 3, 4])  # waited for, as the call returned it
    np.testing.assert_array_equal(firsts["two"][0], [-3, 0, 3, 6])
    assert (firsts["one"][1], firsts["two"][1]) == (1, 2)


def test_a_measuring_job_sets_its_xla_flags_before_anything_imports_jax():
    """scripts/run_study.py imports the job's code, then sets the study's XLA flags: that import must not
    start JAX (a study's flags, e.g. two host devices for tree_at, would be refused)."""
    import subprocess
    import sys

    check = ("import sys, jaxpitfalls.jobs.study, jaxpitfalls.runtime, jaxpitfalls.configcheck; "
             "assert 'jax' not in sys.modules")  # configcheck: the Snakefile imports it while parsing
    assert subprocess.run([sys.executable, "-c", check]).returncode == 0


@pytest.mark.slow
def test_a_job_that_xla_aborts_leaves_the_reason_in_its_log(tmp_path):
    """An unknown XLA flag aborts the process from C++, past Python's exception handling: the reason must
    still reach the rule's log file (runtime.start points standard error there), and the console."""
    import subprocess
    import sys

    log = tmp_path / "job.log"
    job = (f"from jaxpitfalls import runtime; runtime.start({str(log)!r}, xla_flags='--xla_no_such_flag=1')\n"
           "import logging; logging.getLogger('jaxpitfalls').info('starting JAX')\n"
           "import jax; jax.devices()")
    proc = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    text = log.read_text()
    assert "starting JAX" in text and "xla_no_such_flag" in text
    assert "starting JAX" in proc.stderr  # Python's log lines still show on the console
    assert text.count("starting JAX") == 1


def test_a_job_whose_worker_failed_logs_the_worker_s_traceback_alone(tmp_path):
    """A walk's failing job printed three tracebacks: the worker's, then the job's own through the pipe's
    plumbing (the worker's error in one line), then the log again; the job's is left out now."""
    import subprocess
    import sys

    log = tmp_path / "job.log"
    job = (f"from jaxpitfalls import runtime; runtime.start({str(log)!r})\n"
           "from jaxpitfalls.harness.workers import WorkerFailed\n"
           "raise WorkerFailed('worker process 1 of 2: ValueError: bad shapes')")
    proc = subprocess.run([sys.executable, "-c", job], capture_output=True, text=True, timeout=60)
    text = log.read_text()
    assert proc.returncode == 1 and "CRITICAL failed: WorkerFailed: worker process 1 of 2: ValueError" in text
    assert "Traceback" not in text
    other = (f"from jaxpitfalls import runtime; runtime.start({str(log)!r})\nraise ValueError('a job of its own')")
    subprocess.run([sys.executable, "-c", other], capture_output=True, text=True, timeout=60)
    assert "Traceback" in log.read_text()  # any other failure keeps its traceback


def _imported_fresh(modules: list[str]) -> set[str]:
    """Every module a fresh interpreter holds once it has imported `modules` (under jaxpitfalls)."""
    import json
    import subprocess
    import sys

    check = (f"import importlib, json, sys; [importlib.import_module('jaxpitfalls.' + m) for m in {modules!r}]; "
             "print(json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(json.loads(proc.stdout))


@pytest.mark.slow
def test_the_jobs_that_only_read_results_import_no_jax_and_no_measuring_code():
    """aggregate, plot, render_report, bundle and compare read results (as does a run judged again, thinned): they
    start without JAX, Equinox or optax, and a study's report reaches its spec, never its measure module."""
    from jaxpitfalls import registry

    imported = _imported_fresh(["report.tables.aggregate", "contract.figures", "report.scorecard.build",
                                "report.tables.bundle", "across_runs.comparison.compare",
                                "across_runs.reference.thinned",
                                *(f"studies.{s}.{part}" for s in registry.names() for part in ("spec", "report"))])
    heavy = sorted({"jax", "equinox", "optax", "torch"} & imported)
    measuring = sorted(m for m in imported if m.endswith(".measure"))
    assert not heavy and not measuring, (heavy, measuring)


@pytest.mark.slow
def test_a_measuring_worker_imports_no_statistics_and_no_tables():
    """Every fresh worker process pays its imports again (a study's job starts two or more): the worker and each
    study's measure module leave scipy and pandas, which the job's merging needs, to the job."""
    from jaxpitfalls import registry

    imported = _imported_fresh(["jobs.study_worker", "jobs.lockstep_worker", "benchfile.measure",
                                *(f"studies.{s}.measure" for s in registry.names())])
    assert not {"scipy", "pandas"} & imported, sorted({"scipy", "pandas"} & imported)

"""A benchmark file gets the whole instrument: its block is checked at parse against setup's axes, its variants are
proven different code paths with equal outputs, the timed region compiles nothing, and whatever the file does
wrong fails the job naming the file and the variant (the examples through every rule: test_examples.py)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml
from configs import ROOT

from jaxpitfalls import plan, registry, results, sources
from jaxpitfalls.benchfile.measure import Measure
from jaxpitfalls.benchfile.reader import BenchFileRefused, read
from jaxpitfalls.benchfile.spec import Timing
from jaxpitfalls.configcheck import InvalidConfig, require_valid
from jaxpitfalls.harness.compiles import CompiledInTimedRegion, NotRecompiling
from jaxpitfalls.harness.variants import VariantOutputsDisagree, VariantsIndistinguishable
from jaxpitfalls.jobs.study import run_configuration

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
FAST = Timing.of({"rounds": 2, "min_sample_s": 0.0, "budget_s": 1, "on_contention": "warn", "warmup_steps": 2,
                  "steps_per_sample": 1})
HEAD = '''import jax
import jax.numpy as jnp


def setup(n):
    return jnp.arange(n, dtype=jnp.float32)


def f(x):
    return jnp.tanh(x) * 2


def jitted(x):
    g = jax.jit(f)
    return lambda: g(x)
'''


@pytest.fixture
def files(monkeypatch):
    """Undoes what use_files changes for this process (the benchmark files in the environment)."""
    monkeypatch.setenv(sources.BENCHMARK_FILES, "")


def bench(tmp_path: Path, body: str, name: str = "bench") -> Measure:
    path = tmp_path / f"{name}.py"
    path.write_text(HEAD + textwrap.dedent(body))
    return Measure(name, path)


def run(measure: Measure, n: int = 8) -> dict:
    return measure.run({"id": f"n{n}", "axes": ["n"], "n": n}, {}, FAST)


def test_a_file_is_timed_by_the_protocol_and_its_result_follows_the_schema(tmp_path, files):
    measure = bench(tmp_path, '''
        def eager(x):
            return lambda: f(x)

        VARIANTS = {"jitted": jitted, "eager": eager}
    ''')
    registry.use_files({"bench": measure.path})
    settings = {"rounds": 2, "min_sample_s": 0.0, "budget_s": 1, "on_contention": "warn"}
    doc = run_configuration("bench", {"id": "n8", "axes": ["n"], "n": 8}, settings, {}, {},
                            str(tmp_path / "result.json"))
    assert doc == results.read_result(tmp_path / "result.json")  # checked against the schema as it is written
    assert doc["floor"] == "jitted" and doc["checks"]["signatures_distinct"]["distinct_signatures"] == 2
    assert doc["checks"]["outputs_agree"]["bitwise_equal"] == {"jitted": True, "eager": True}
    pairs = {(c["mode"], c["variant"], c["baseline"]) for c in doc["comparisons"]}
    assert {("blocked", "eager", "jitted"), ("pipelined", "eager", "jitted"),
            ("blocked", "jitted~twin", "jitted")} <= pairs
    signatures = {v: doc["variants"][v]["signature"] for v in ("jitted", "eager")}
    assert signatures["jitted"]["programs_compiled"] == 1 and signatures["eager"]["programs_compiled"] >= 2
    assert doc["variants"]["jitted"]["program_memory"]["total_bytes"] >= 2 * 8 * 4  # float32[8] in, one out
    assert doc["benchmark_file"] == str(tmp_path / "bench.py")


def test_two_variants_that_run_the_same_code_fail_the_job_naming_the_file(tmp_path):
    with pytest.raises(VariantsIndistinguishable, match="bench.py"):
        run(bench(tmp_path, '''
            def one(x):
                g = jax.jit(f)
                return lambda: g(x)

            def other(x):
                g = jax.jit(f)
                return lambda: g(x)

            VARIANTS = {"one": one, "other": other}
        '''))


DEVICE_AND_HOST = '''
        import numpy as np

        g = jax.jit(f)

        def device(x):
            return lambda: g(x)

        def host(x):
            held = np.asarray(x)
            return lambda: g(held)
'''  # indented as the tests' bodies are, which bench() dedents


def test_a_host_array_or_a_loop_of_calls_is_a_different_call_on_the_same_programs(tmp_path):
    """The pitfalls no program or profiled Python tells apart (the jitted function is C++ to the profiler): the same
    jitted call on a NumPy array (copied to the device every call), and three calls in a Python loop. The call as
    written tells them apart, so each is timed; two builders of the same call still fail."""
    doc = run(bench(tmp_path, DEVICE_AND_HOST + '''

        def looped(x):
            def call():
                for _ in range(3):
                    out = g(x)
                return out
            return call

        VARIANTS = {"device": device, "host": host, "looped": looped}
    '''))
    signatures = {v: doc["variants"][v]["signature"] for v in ("device", "host", "looped")}
    assert len({s["program"] for s in signatures.values()}) == 1
    assert len({doc["variants"][v]["executable"] for v in signatures}) == 1  # one optimized program too
    assert len({s["python"] for s in signatures.values()}) == 1
    assert len({s["call"] for s in signatures.values()}) == 3
    with pytest.raises(VariantsIndistinguishable, match="'device' and 'same'"):
        run(bench(tmp_path, '''
            g = jax.jit(f)

            def device(x):
                return lambda: g(x)

            def same(x):
                return lambda: g(x)

            VARIANTS = {"device": device, "same": same}
        ''', name="twice"))


def test_donating_a_buffer_is_a_different_program_on_the_same_python_path_holding_less(tmp_path):
    """XLA's plan for each variant's program: the copy holds its argument and a new output at once, the donated
    one writes its output into the argument's buffer (counted once), a peak one output smaller."""
    doc = run(bench(tmp_path, '''
        def stepped(update, x):
            state = [jnp.array(x)]

            def step():
                state[0] = update(state[0])
                return state[0]

            return step

        def copied(x):
            return stepped(jax.jit(f), x)

        def donated(x):
            return stepped(jax.jit(f, donate_argnums=0), x)

        VARIANTS = {"copied": copied, "donated": donated}
    '''), n=256)
    copied, donated = (doc["variants"][v]["signature"] for v in ("copied", "donated"))
    assert copied["python"] == donated["python"] and copied["program"] != donated["program"]
    copied, donated = (doc["variants"][v]["program_memory"] for v in ("copied", "donated"))
    buffer = 256 * 4  # float32[256]
    assert copied == {"total_bytes": 2 * buffer, "argument_bytes": buffer, "output_bytes": buffer,
                      "donated_bytes": 0, "temporary_bytes": 0, "programs": 1, "devices": 1}
    assert donated == copied | {"total_bytes": buffer, "donated_bytes": buffer}


def test_a_donation_jax_cannot_use_or_a_buffer_donated_twice_is_said_as_such(tmp_path):
    """A donated argument no output matches compiles the same program as the copy (JAX warns, in the log only):
    the same-signature error says why. A call donating setup's own buffer fails in its second call, not its first."""
    unusable = '''
        def copied(x):
            g = jax.jit(jnp.sum)
            return lambda: g(x + 0)

        def donated(x):
            g = jax.jit(jnp.sum, donate_argnums=0)
            return lambda: g(x + 0)

        VARIANTS = {"copied": copied, "donated": donated}
    '''
    with pytest.raises(VariantsIndistinguishable, match="JAX could not use 'donated''s donation: Some donated "
                                                        "buffers were not usable"), \
            pytest.warns(UserWarning, match="donated buffers were not usable"):  # still said where JAX says it
        run(bench(tmp_path, unusable))
    twice = '''
        def copied(x):
            g = jax.jit(f)
            return lambda: g(x)

        def donated(x):
            g = jax.jit(f, donate_argnums=0)
            return lambda: g(x)

        VARIANTS = {"copied": copied, "donated": donated}
    '''
    with pytest.raises(BenchFileRefused, match=r"variant 'donated' raised .* in its second call \(its first ran\).*"
                                               r"donate one of its own each time"):
        run(bench(tmp_path, twice))


def test_outputs_that_differ_fail_the_job_unless_the_file_says_why(tmp_path):
    body = '''
        def tanh(x):
            g = jax.jit(f)
            return lambda: g(x)

        def sine(x):
            g = jax.jit(jnp.sin)
            return lambda: g(x)

        VARIANTS = {"tanh": tanh, "sine": sine}
    '''
    with pytest.raises(VariantOutputsDisagree,
                       match=r"does each call compute its result anew.*OUTPUTS_DIFFER.*rounding alone: set TOLERANCE"):
        run(bench(tmp_path, body))  # a walk's call returning a precomputed result, told to declare it, timed
    doc = run(bench(tmp_path, body + '    OUTPUTS_DIFFER = {"sine": "another function, timed for its cost"}\n'))
    assert doc["checks"]["outputs_agree"]["differ_on_purpose"] == {"sine": "another function, timed for its cost"}


def test_two_variants_of_another_computation_are_held_to_each_other_and_timed_as_a_pair(tmp_path):
    """A walk's file of two questions (NumPy inputs against device ones; a loop reading each step's value against
    one reading them at the end): OUTPUTS_DIFFER on the loops left them compared with nothing, and a loop that
    doubled its values passed."""
    body = DEVICE_AND_HOST + '''

        def loop(x, read):
            def call():
                out, seen = x, []
                for _ in range(3):
                    out = g(out)
                    seen.append(read(out))
                return np.stack([np.asarray(s) for s in seen])
            return call

        def each_step(x):
            return loop(x, lambda out: np.asarray(out))

        def at_end(x):
            return loop(x, lambda out: out)

        VARIANTS = {"device": device, "host": host, "each_step": each_step, "at_end": at_end}
        OUTPUTS_DIFFER = {"each_step": "three steps' values, not one call's"}
        SAME_OUTPUTS_AS = {"at_end": "each_step"}
    '''
    doc = run(bench(tmp_path, body))
    agreed = doc["checks"]["outputs_agree"]
    assert agreed["against"] == {"at_end": "each_step"} and agreed["max_abs_difference"]["at_end"] == 0.0
    assert [doc["variants"][v].get("returns_host") for v in ("device", "each_step")] == [None, True]  # waits inside
    assert ("blocked", "at_end", "each_step") in {(c["mode"], c["variant"], c["baseline"]) for c in doc["comparisons"]}
    from jaxpitfalls.report.tables.job_checks import agreement
    assert "1 variant vs device: " in agreement(doc["checks"])["outputs_agree"]
    assert "; at_end vs each_step: within " in agreement(doc["checks"])["outputs_agree"]
    with pytest.raises(VariantOutputsDisagree, match="'at_end' and 'each_step' outputs differ.*SAME_OUTPUTS_AS entry"):
        run(bench(tmp_path, body.replace("lambda out: out)", "lambda out: out * 2)"), name="doubled"))


@pytest.mark.parametrize("builder, said", [
    # its work dispatched and dropped: the timer would wait on nothing (even with OUTPUTS_DIFFER saying why)
    ("    g = jax.jit(f)\n    def call():\n        g(x)\n    return call",
     "variant 'idle''s call returns no array, so nothing is waited for"),
    # its work done by the builder: the call hands back the same arrays each time
    ("    out = jax.jit(f)(x)\n    return lambda: out",
     "variant 'idle''s call compiles no program, calls nothing and returns the very arrays of the call before"),
])
def test_a_call_whose_time_would_not_be_its_work_is_refused(tmp_path, builder, said):
    body = f"""
def idle(x):
{builder}

def host(x):  # numpy, computed in the call: new arrays each time, no program; timed
    y = np.asarray(x)
    return lambda: np.tanh(y) * 2

def into(x):  # numpy into a buffer of the builder's: the same array each call, but computed by a call; timed
    y, buf = np.asarray(x), np.empty(x.shape, np.float32)
    return lambda: np.multiply(np.tanh(y, out=buf), 2, out=buf)

def tree(x):  # Python over a pytree, no program: its leaves come back as they went in; timed
    leaves = {{"a": jax.jit(f)(x)}}
    return lambda: jax.tree.map(lambda leaf: leaf, leaves)["a"]

VARIANTS = {{"jitted": jitted, "idle": idle, "host": host, "into": into, "tree": tree}}
OUTPUTS_DIFFER = {{"idle": "on purpose"}}
"""
    with pytest.raises(BenchFileRefused, match=re.escape(said)):
        run(bench(tmp_path, "import numpy as np\n" + body))
    run(bench(tmp_path, "import numpy as np\n" + body.replace('"idle": idle, ', "").replace(
        'OUTPUTS_DIFFER = {"idle": "on purpose"}', "")))


def test_outputs_are_compared_leaf_by_leaf_by_path_not_by_position(tmp_path):
    """A dict with another key, or a tuple of the same leaves in another order, is refused as another structure
    (its leaves' values matched up by position alone); a NamedTuple with the dict's keys, in another order, is the
    same outputs."""
    head = '''
        import collections

        def summed(x):
            return lambda: {"s": x.sum(), "m": x.max()}

        def named(x):
            pair = collections.namedtuple("pair", "s m")
            return lambda: pair(jnp.sum(x) + 0.0, jnp.max(x))
    '''
    doc = run(bench(tmp_path, head + '''
        VARIANTS = {"summed": summed, "named": named}
    '''))
    assert doc["checks"]["outputs_agree"]["values"] == 2 * FAST.warmup_steps  # two leaves a warm-up call
    for other, said in (("{'s': x.sum(), 'mx': x.max()}", r"gives \['mx'\] shape \(\), \['s'\]"),
                        ("(x.sum(), x.max())", r"gives \[0\] shape \(\), \[1\] shape \(\), 'summed' gives")):
        with pytest.raises(VariantOutputsDisagree, match=said):
            run(bench(tmp_path, head + f'''
        def other(x):
            return lambda: {other}

        VARIANTS = {{"summed": summed, "other": other}}
    '''))


@pytest.mark.parametrize("body, said", [
    ('''
        def good(x):
            return lambda: f(x)

        def bad(x):
            return lambda: f(x)[100:].sum() + jnp.ones((2, 3)) @ jnp.ones((4,))

        VARIANTS = {"good": good, "bad": bad}
     ''', "variant 'bad' raised TypeError"),
    ('''
        def good(x):
            return lambda: f(x)

        def value(x):
            return f(x)

        VARIANTS = {"good": good, "value": value}
     ''', "variant 'value': value(...) returned 'ArrayImpl', not the call to time"),
    ('''
        import not_a_module_anywhere

        def good(x):
            return lambda: f(x)

        def other(x):
            return lambda: f(x) + 0

        VARIANTS = {"good": good, "other": other}
     ''', "cannot be imported: ModuleNotFoundError"),
])
def test_what_a_file_does_wrong_fails_the_job_naming_the_file_and_the_variant(tmp_path, body, said):
    with pytest.raises(BenchFileRefused, match="bench.py") as refused:
        run(bench(tmp_path, body))
    assert said in str(refused.value)


def test_a_variant_that_compiles_on_every_call_fails_the_job_unless_the_file_declares_it(tmp_path):
    with pytest.raises(CompiledInTimedRegion, match=r"bench\.py: .*growing.*name the variant in RECOMPILES"):
        run(bench(tmp_path, '''
            def fixed(x):
                g = jax.jit(f)
                return lambda: g(x)

            def growing(x):
                g, state = jax.jit(f), [x]

                def step():
                    state[0] = jnp.concatenate([state[0], state[0][:1]])
                    return g(state[0])[:1] * 0 + g(x)

                return step

            VARIANTS = {"fixed": fixed, "growing": growing}
        '''))


def _config(block: dict) -> dict:
    """config.yaml with the smoke preset and `block` laid over it, as the Snakefile reads it before its check."""
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    update_config(config, yaml.safe_load((ROOT / "presets/smoke.yaml").read_text()))
    update_config(config, {"studies": {name: {"enabled": False} for name in registry.names()
                                       if not registry.is_file(name)} | block})
    return config


def test_a_files_block_is_a_study_whose_base_keys_are_setups_axes(files):
    config = _config({"mine": {"file": str(ROOT / "examples/vmap_loop.py"), "base": {"batch": 4, "width": 8},
                               "sweep": {"batch": [16]}}})
    require_valid(config, SCHEMA)
    confs = plan.configurations(config["studies"]["mine"])
    assert [c["id"] for c in confs] == ["batch4-width8", "batch16-width8"] and "model" not in confs[0]
    assert plan.job_inputs(config, "mine", confs[0]["id"]) == {} and plan.all_models(config) == []
    # the timing jobs' parameter, not their input: an edited expectation times nothing again (test_examples.py)
    assert not any(path.endswith("examples/vmap_loop.py") for path in registry.part_sources("mine", "measure"))
    assert any(path.endswith("examples/vmap_loop.py") for path in registry.part_sources("mine", "report"))
    assert len(registry.measured_code("mine")) == 64 and registry.measured_code("dispatch") == ""


def test_the_modules_beside_a_file_that_it_imports_are_its_measuring_jobs_inputs(tmp_path, monkeypatch, files):
    (tmp_path / "layers.py").write_text("import numpy\nfrom kernels.fused import matmul\n")
    for folder, files in {"kernels": ("__init__.py", "fused.py"), "helpers": ("k.py",)}.items():  # helpers: namespace
        (tmp_path / folder).mkdir()
        for f in files:
            (tmp_path / folder / f).write_text("import util\n" if f == "k.py" else "")
    (tmp_path / "util.py").write_bytes("# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1"))  # valid
    (tmp_path / "unrelated.py").write_text("")
    (tmp_path / "numpy").mkdir()  # a folder named as an installed package, no __init__.py: numpy imports, not it
    (tmp_path / "numpy" / "log.py").write_text("")
    bench(tmp_path, """
        from helpers.k import f

        def setup(n):
            import layers
            return jnp.ones(n)

        def plus(x):
            return lambda: x + 1

        def times(x):
            return lambda: x * 2

        VARIANTS = {"plus": plus, "times": times}
    """)
    monkeypatch.chdir(tmp_path)
    registry.use_files({"mine": str(tmp_path / "bench.py")})
    measured = {Path(p).name for p in registry.part_sources("mine", "measure")}
    assert {"layers.py", "__init__.py", "fused.py", "k.py", "util.py"} <= measured
    assert "unrelated.py" not in measured and "log.py" not in measured
    assert "layers.py" not in {Path(p).name for p in registry.part_sources("mine", "report")}
    (tmp_path / "util.py").write_text("def broken(:\n")  # refused at parse, naming the module, not run stale
    assert registry.file_problems({"mine": tmp_path / "bench.py"}) == {"mine": [
        f"studies.mine.file: {tmp_path / 'util.py'}:1: not valid Python (bench.py imports it): invalid syntax"]}


@pytest.mark.parametrize("block, said", [
    ({"file": "examples/vmap_loop.py", "base": {"batch": 4, "width": 8, "depth": 2}},
     "config studies.mine.base: unknown key 'depth'"),
    ({"file": "examples/vmap_loop.py", "base": {"batch": 4}}, "config studies.mine.base: 'width' is required"),
    ({"file": "examples/nowhere.py", "base": {"batch": 4}}, "studies.mine.file:"),
    ({"file": "README.md", "base": {}}, "not valid Python"),
    ({"file": "examples/vmap_loop.py", "base": {"batch": 4, "width": "8/9"}},
     "config studies.mine.base.width = '8/9': '8/9' does not match"),
])
def test_a_block_the_file_cannot_take_is_refused_at_parse_naming_the_key(files, monkeypatch, block, said):
    monkeypatch.chdir(ROOT)
    with pytest.raises(InvalidConfig) as refused:
        require_valid(_config({"mine": block}), SCHEMA)
    assert said in str(refused.value)


def test_a_refused_file_hides_none_of_the_configs_other_problems(files, monkeypatch):
    monkeypatch.chdir(ROOT)
    config = _config({"mine": {"file": "examples/nowhere.py", "base": {"batch": 4}},
                      "yours": {"file": "examples/vmap_loop.py", "base": {"batch": 4, "width": 8}}})
    config["run_targt_s"] = 100
    with pytest.raises(InvalidConfig) as refused:
        require_valid(config, SCHEMA)
    said = str(refused.value)
    assert said.startswith("2 problems") and "studies.mine.file:" in said and "unknown key 'run_targt_s'" in said


def test_a_file_refused_for_its_expectations_has_its_block_checked_against_its_setup_too(files, tmp_path):
    """Its setup reads, so its base and sweep keys are said with its EXPECT's problems, not after they are fixed."""
    bad = tmp_path / "bad.py"
    bad.write_text((ROOT / "examples/vmap_loop.py").read_text().replace('EXPECT = ["vmap', 'EXPECT = ["vmapp'))
    config = _config({"mine": {"file": str(bad), "base": {"batch": 4, "size": 3}, "sweep": {"m": [1]}}})
    with pytest.raises(InvalidConfig) as refused:
        require_valid(config, SCHEMA)
    said = str(refused.value).splitlines()
    assert said[0] == "4 problems in the config:" and "'vmapp' is not one of the variants" in said[1]
    assert said[2:5] == ["config studies.mine.base: unknown key 'size' (known: batch, width)",
                        "config studies.mine.base: 'width' is required",
                        "config studies.mine.sweep: unknown key 'm' (known: batch, width)"]


def test_a_refused_file_alone_enabled_is_one_problem_not_three(files, monkeypatch):
    """Checked without the refused file's block, the config has no study enabled and names a history study it
    lacks: neither is a problem of its own."""
    monkeypatch.chdir(ROOT)
    config = _config({"mine": {"file": "examples/nowhere.py", "base": {"batch": 4}}})
    config["history"] = {"study": "mine"}
    with pytest.raises(InvalidConfig) as refused:
        require_valid(config, SCHEMA)
    assert str(refused.value).startswith("1 problem in the config:\nconfig studies.mine.file:")


def test_a_file_named_like_a_packaged_study_is_refused(files):
    with pytest.raises(InvalidConfig, match="a study named 'dispatch' is already"):
        require_valid(_config({"dispatch": {"file": str(ROOT / "examples/vmap_loop.py"), "base": {}}}), SCHEMA)


def test_the_report_lists_the_variants_whose_outputs_differ_on_purpose(tmp_path):
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, '''
        def one(x):
            return lambda: f(x)

        def other(x):
            return lambda: jnp.sin(x)

        VARIANTS = {"one": one, "other": other}
        OUTPUTS_DIFFER = {"other": "the sine, timed for its cost"}
    ''').path
    steps = pd.DataFrame({"config_id": ["n8", "n8"], "variant": ["one", "other"], "mode": ["blocked"] * 2,
                          "demonstration": ["", ""], "signature_python_calls": [3, 5],
                          "signature_programs_compiled": [1, 1], "compiles_in_warmup": [2, 1]})
    alike = steps.assign(executable="9f2c", returns_host=[None, True])  # two spellings XLA compiled alike
    shown = Report(spec("bench", path)).tables({"steps": alike})[0][2]
    assert shown.same_executable_as.tolist() == ["other", "one"] and shown.returns_host.tolist() == ["", "yes"]
    assert Report(spec("bench", path)).tables({"steps": steps.assign(executable=None)})[0][2].same_executable_as \
        .tolist() == ["", ""]
    checks = pd.DataFrame({"config_id": ["n8"], "processes": [2]})
    overhead = pd.DataFrame({"config_id": ["n8"] * 3, "variant": ["one", "one", "one"], "capture": [0, 0, 1],
                             "jit_calls": [2.0, 2.0, 2.0]})  # a row per component and capture: one count a variant
    (runs, differ) = Report(spec("bench", path), {"other": "the sine, timed for its cost"}).tables(
        {"steps": steps, "checks": checks, "overhead": overhead})
    assert list(runs[2].signature_python_calls) == [3, 5]
    assert list(runs[2].warmup_compiles_per_process) == [1, 0.5]  # a job's sum over its two processes, shared
    assert runs[2].jit_calls_traced.tolist()[0] == 2 and pd.isna(runs[2].jit_calls_traced.tolist()[1])
    from jaxpitfalls.report.scorecard.markdown import table
    assert "<NA>" not in table(runs[2])  # an untraced configuration's count is blank, not pandas' NA
    absent = table(pd.DataFrame({"mode": ["a", "b", "c"], "ms": [1.5, float("nan"), None], "k": ["x", None, pd.NA]}))
    assert "nan" not in absent and "None" not in absent and "1.500" in absent  # a float column's NaN, an object's
    assert differ[0] == "Outputs not compared" and differ[2].to_dict("records") == [
        {"variant": "other", "why": "the sine, timed for its cost"}]
    (_, held) = Report(spec("bench", path), same_outputs_as={"other": "one"}).tables({"steps": steps})
    assert held[2].to_dict("records") == [{"variant": "other", "why": "held to `one`'s outputs instead "
                                                                      "(SAME_OUTPUTS_AS)"}]


def test_the_report_sets_each_variants_planned_peak_beside_the_floors_blank_where_none_compiled(tmp_path):
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, '''
        import numpy as np

        def copied(x):
            return lambda: f(x)

        def host(x):
            return lambda: np.tanh(np.asarray(x)) * 2

        def looped(x):
            return lambda: [f(row) for row in x]

        VARIANTS = {"copied": copied, "host": host, "looped": looped}
    ''').path
    plan = {"total_bytes": [2 * 2**20, None, 2**20], "argument_bytes": [2**20, None, 2**20],
            "output_bytes": [2**20, None, 2**19], "donated_bytes": [0, None, 0], "temporary_bytes": [0, None, 0],
            "programs": [1, None, 3], "devices": [1, None, 1]}
    steps = pd.DataFrame({"config_id": "n8", "variant": ["copied", "host", "looped"], "mode": "blocked",
                          "demonstration": "", "signature_python_calls": 3, "signature_programs_compiled": [1, 0, 3],
                          "compiles_in_warmup": 1,
                          **{f"program_{k}": v for k, v in plan.items()}})
    (_, (title, _, shown)) = Report(spec("bench", path)).tables({"steps": steps})
    assert title == "What each variant's largest program holds"
    assert shown.total_mib.tolist()[0] == 2.0 and shown.total_vs_floor.tolist()[0] == 1.0
    assert shown.iloc[1, 2:].isna().all()  # NumPy's call compiled nothing: blank, not 0
    # three programs a call: the arrays passed between them are in no plan, so no ratio to the floor's
    assert shown.programs_planned.tolist()[2] == 3 and pd.isna(shown.total_vs_floor.tolist()[2])
    steps = steps.drop(columns=[f"program_{k}" for k in plan])  # a JAX that keeps no plan: no table
    assert len(Report(spec("bench", path)).tables({"steps": steps})) == 1


def test_a_call_that_closes_over_a_class_or_an_odd_shape_has_a_signature():
    """A dtype class (its `shape` a descriptor) or an object whose `shape` is a number is bound by kind, not read
    as an array: it failed the variant's first call."""
    import numpy as np

    from jaxpitfalls.benchfile.signature import call_code

    class Odd:
        shape, dtype = 3, "f"

    def bound(dtype, odd):
        return lambda: (dtype, odd)

    assert call_code(bound(np.float32, Odd())) != call_code(bound(np.float16, Odd()))


ONE_AND_OTHER = '''def one(x):
    return lambda: f(x)

def other(x):
    g = jax.jit(f)
    return lambda: g(x)

VARIANTS = {"one": one, "other": other}
'''  # f un-jitted, and jitted once


def test_the_time_split_draws_each_median_split_by_its_traced_shares(tmp_path):
    """The bars stand for the untraced blocked medians (with their intervals), not the tracer-inflated traced times
    (a user's read 0.533 ms traced beside a 0.305 ms median)."""
    import pandas as pd
    from matplotlib.container import ErrorbarContainer

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER).path
    steps = pd.DataFrame({"config_id": "n8", "axes": "n", "n": 8, "variant": ["one", "other"], "mode": "blocked",
                          "demonstration": "", "median_ms": [0.3, 0.2], "median_ci_low_ms": [0.28, 0.19],
                          "median_ci_high_ms": [0.32, 0.21]})
    overhead = pd.DataFrame({"config_id": "n8", "variant": ["one", "one", "other", "other"], "capture": 0,
                             "component": ["dispatch", "wait"] * 2, "exclusive_ms": [0.4, 0.13, 0.3, 0.1],
                             "untraced_estimate_ms": [0.225, 0.075, 0.15, 0.05]})
    ax = Report(spec("bench", path)).figures({"steps": steps, "overhead": overhead, "comparisons": pd.DataFrame(
        columns=["config_id", "mode", "variant", "baseline", "axes", "demonstration"])})["time_split"].axes[0]
    heights = sorted(round(p.get_height(), 3) for p in ax.patches)
    assert heights == [0.05, 0.075, 0.15, 0.225]  # the medians' parts: 0.3 and 0.2 ms whole
    (total,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert list(total.lines[0].get_ydata()) == [0.3, 0.2]


def test_the_measuring_jobs_parameter_changes_with_the_code_the_jobs_run_and_nothing_else(tmp_path):
    """EXPECT's wording, comments and the docstring are not run: the same digest; the code, a new pair EXPECT has
    the jobs compare, another assignment beside EXPECT's, or the file's name (the trace names its frames by it): a
    new one."""
    from jaxpitfalls.benchfile.spec import measured_code, spec

    original = (ROOT / "examples/vmap_loop.py").read_text()

    def digest(text: str, name: str = "bench.py") -> str:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        (folder / name).write_text(text)
        return measured_code("bench", folder / name)

    same = digest(original)
    assert digest(original.replace("at least 2x", "at least 3x") + "# a note\n") == same
    assert digest('"""Another docstring."""\n' + original.split('"""', 2)[2]) == same
    assert digest(original.replace("jnp.tanh(w @ x)", "jnp.tanh(w @ x) * 1")) != same
    assert digest(original, "mine.py") != same
    assert digest(original.replace("EXPECT = [", "EXPECT = OTHER = [")) != same
    declared = original + 'RECOMPILES = {"vmap": "a reason"}\n'
    assert digest(declared.replace("a reason", "another reason")) == digest(declared) != same  # a why is said only
    assert digest(declared.replace("RECOMPILES", "OUTPUTS_DIFFER")) != digest(declared)  # another declaration
    again = "def again(w, xs):\n    return vmap(w, xs)\n\n\ndef vmap("
    third = original.replace('"loop": loop}', '"loop": loop, "again": again}').replace("def vmap(", again)
    base = digest(third)
    assert digest(third.replace('"vmap at least 2x', '"vmap at least 3x')) == base  # the floor's pair either way
    assert digest(third.replace('EXPECT = ["', 'EXPECT = ["again within 5% of vmap", "')) != base  # a pair to time
    assert digest(third.replace('EXPECT = ["', 'EXPECT = ["again compiles within 5% of vmap", "')) != base  # too
    assert digest(third.replace('EXPECT = ["', 'EXPECT = ["again uses less memory than vmap at batch=8", "')) == base
    both = third.replace('EXPECT = ["', 'EXPECT = ["again within 5% of vmap", "vmap compiles faster than again", "')
    (tmp_path / "both").mkdir()
    (tmp_path / "both" / "bench.py").write_text(both)
    assert spec("bench", tmp_path / "both" / "bench.py").extra_pairs == (("again", "vmap"),)  # named both ways: once


def test_a_file_declaring_first_run_times_each_call_from_cleared_caches_compiling_every_sample(tmp_path, files):
    measure = bench(tmp_path, '''
        def twice(x):
            g = jax.jit(lambda y: f(f(y) / 2))
            return lambda: g(x)

        VARIANTS = {"jitted": jitted, "twice": twice}
        OUTPUTS_DIFFER = {"twice": "another function, compiled"}
        FIRST_RUN = True
        EXPECT = ["twice within 50% of jitted when first run"]
    ''')
    doc = run(measure)
    first = doc["variants"]["twice"]["modes"]["first_run"]
    assert first["measures_compilation"] and first["compiles_in_timed_region"] >= len(first["samples_s"]) >= 2
    assert len(first["compile_seconds"]) == len(first["samples_s"]) and "twice__aa" not in doc["variants"]
    assert {(c["variant"], c["mode"]) for c in doc["comparisons"]} >= {("twice", "first_run"), ("twice", "blocked")}
    registry.use_files({"bench": measure.path})
    assert registry.spec("bench").modes["first_run"].startswith("one call from cleared caches")
    config = {"xla_flags": "", "jax_cache_dir": "/tmp/cache", "studies": {"bench": {"xla_flags": "",
                                                                                   "compilation_cache": True}}}
    assert plan.job_runtime(config, "bench")["jax_cache_dir"] == ""  # a first run read from the cache times none
    host = measure.path.read_text().replace('VARIANTS = {"jitted": jitted, "twice": twice}', """
def host(x):
    import numpy as np
    y = np.asarray(x)
    return lambda: np.tanh(y) * 2

VARIANTS = {"jitted": jitted, "twice": twice, "host": host}""")
    with pytest.raises(BenchFileRefused, match=r"FIRST_RUN times a first call's compiling, and \['host'\] compile no "
                                               r"program in theirs"):  # before anything is timed
        run(bench(tmp_path, host, name="host_file"))
    with pytest.raises(BenchFileRefused, match=r"EXPECT 'twice within 50% of jitted when first run': first runs "
                                               r"are timed only where a file sets FIRST_RUN = True, which this one "
                                               r"does not"):
        read(bench(tmp_path, measure.path.read_text().replace("FIRST_RUN = True", ""), name="other").path)


def test_a_variant_declared_to_compile_in_every_call_is_timed_compiling_and_must(tmp_path, files):
    measure = bench(tmp_path, '''
        def fresh(x):
            return lambda: jax.jit(lambda y: jnp.tanh(y) * 2)(x)

        VARIANTS = {"jitted": jitted, "fresh": fresh}
        RECOMPILES = {"fresh": "a new lambda jitted in every call"}
    ''')
    doc = run(measure)
    signatures = {v: doc["variants"][v]["signature"] for v in ("fresh", "jitted")}
    assert signatures["fresh"]["retraces"] and "retraces" not in signatures["jitted"]
    for mode in ("blocked", "pipelined"):
        entry, floor = doc["variants"]["fresh"]["modes"][mode], doc["variants"]["jitted"]["modes"][mode]
        assert entry["demonstration"] and "demonstration" not in floor and not floor["compiles_in_timed_region"]
        assert entry["compiles_in_timed_region"] >= len(entry["samples_s"]) >= 2
        # a call's compiling, tracing and lowering, as samples_s are a call's: within the call they were part of
        stages = zip(entry["compile_seconds"], entry["tracing_seconds"], entry["lowering_seconds"], strict=True)
        assert all(0 < c + t + lo <= s for (c, t, lo), s in zip(stages, entry["samples_s"], strict=True))
    assert ("blocked", "fresh", "jitted") in {(c["mode"], c["variant"], c["baseline"]) for c in doc["comparisons"]}
    registry.use_files({"bench": measure.path})
    config = {"xla_flags": "", "jax_cache_dir": "/tmp/cache", "studies": {"bench": {"xla_flags": "",
                                                                                   "compilation_cache": True}}}
    assert plan.job_runtime(config, "bench")["jax_cache_dir"] == ""  # a compile read from the cache compiles none
    stepped = measure.run({"id": "n8", "axes": ["n"], "n": 8}, {}, Timing.of(
        {"rounds": 2, "min_sample_s": 0.0, "budget_s": 1, "on_contention": "warn", "steps_per_sample": 3}))
    entry = stepped["variants"]["fresh"]["modes"]["blocked"]  # a sample is a step's share of 3: so is its compiling
    assert all(0 < c <= s for c, s in zip(entry["compile_seconds"], entry["samples_s"], strict=True))
    assert entry["compiles_in_timed_region"] >= 3 * len(entry["samples_s"])  # every step of every sample compiled
    steady = measure.path.read_text().replace('jax.jit(lambda y: jnp.tanh(y) * 2)(x)', 'g(x) + 0')
    steady = steady.replace("def fresh(x):", "def fresh(x):\n    g = jax.jit(f)")
    with pytest.raises(NotRecompiling, match=r"steady\.py: .*'fresh' compiled 0 program.*declared to \(RECOMPILES\)"):
        run(bench(tmp_path, steady.removeprefix(HEAD), name="steady"))


def test_the_report_says_what_compiling_in_every_call_costs_and_why(tmp_path):
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, '''
        def one(x):
            g = jax.jit(f)
            return lambda: g(x)

        def fresh(x):
            return lambda: jax.jit(f)(x)

        VARIANTS = {"one": one, "fresh": fresh}
    ''').path
    steps = pd.DataFrame({"config_id": ["n8"] * 4, "variant": ["one", "fresh"] * 2, "mode": ["blocked"] * 2 +
                          ["pipelined"] * 2, "demonstration": [""] * 4, "signature_python_calls": [3, 3000] * 2,
                          "signature_programs_compiled": [1, 1] * 2, "compiles_in_warmup": [1, 2] * 2,
                          "median_ms": [0.02, 10.0, 0.02, 8.0], "compile_median_ms": [None, 4.0, None, 4.0],
                          "tracing_median_ms": [None, 1.0, None, 1.0], "lowering_median_ms": [None, 2.0, None, 2.0],
                          "compiles_in_timed_region": [0, 20, 0, 30]})
    found = Report(spec("bench", path), recompiles={"fresh": "jits anew"}).tables(
        {"steps": steps, "checks": pd.DataFrame({"config_id": ["n8"], "processes": [2]}), "overhead": pd.DataFrame()})
    title, _, table = found[-1]
    assert title == "What compiling in every call costs"
    assert table[["mode", "call_ms", "tracing_ms", "lowering_ms", "compiling_ms", "compiling_share", "why"]].to_dict(
        "records") == [{"mode": "blocked", "call_ms": 10.0, "tracing_ms": 1.0, "lowering_ms": 2.0, "compiling_ms": 4.0,
                        "compiling_share": 0.4, "why": "jits anew"},
                       {"mode": "pipelined", "call_ms": 8.0, "tracing_ms": 1.0, "lowering_ms": 2.0,
                        "compiling_ms": 4.0, "compiling_share": 0.5, "why": "jits anew"}]
    assert [t for t, _, _ in Report(spec("bench", path)).tables(
        {"steps": steps, "checks": pd.DataFrame({"config_id": ["n8"], "processes": [2]}),
         "overhead": pd.DataFrame()})][-1] != title  # no RECOMPILES, no such table


def test_first_calls_are_drawn_apart_from_the_warm_medians(tmp_path):
    """A user's walk: first calls of 100-1200 ms on the warm medians' log axis squeezed 0.43 against 0.51 ms into
    one dot."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER + "FIRST_RUN = True\n").path
    steps = pd.DataFrame({"config_id": "n8", "axes": "n", "n": 8, "variant": ["one", "other"] * 2,
                          "mode": ["blocked"] * 2 + ["first_run"] * 2, "demonstration": "",
                          "median_ms": [0.43, 0.51, 900.0, 1200.0]}).assign(
        median_ci_low_ms=lambda t: t.median_ms * 0.95, median_ci_high_ms=lambda t: t.median_ms * 1.05)
    figures = Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(), "comparisons":
                                                   pd.DataFrame(columns=["config_id", "mode", "variant", "baseline",
                                                                         "axes", "demonstration"])})
    warm, first = (figures[name].axes[0] for name in ("medians", "medians_first_run"))
    assert warm.get_ylim()[1] < 1 and first.get_ylim()[0] > 100


def test_a_first_calls_compiling_is_set_against_the_floors_with_its_interval(tmp_path):
    """A walk's "does scan compile faster?": the ratio and its interval were in comparisons.csv alone."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER + "FIRST_RUN = True\n").path
    steps = pd.DataFrame({"config_id": "n8", "axes": "n", "n": 8, "variant": ["one", "other"], "mode": "first_run",
                          "demonstration": "", "median_ms": [900.0, 1200.0], "compile_median_ms": [600.0, 300.0],
                          "signature_python_calls": 3, "signature_programs_compiled": 1, "compiles_in_warmup": 1})
    comparisons = pd.DataFrame({"config_id": "n8", "variant": ["other"], "baseline": ["one"], "mode": ["first_run"],
                                "demonstration": "", "compile_ratio": 0.5, "compile_ratio_ci_low": 0.4,
                                "compile_ratio_ci_high": 0.6})
    found = {title: table for title, _, table in Report(spec("bench", path)).tables(
        {"steps": steps, "checks": pd.DataFrame({"config_id": ["n8"], "processes": [2]}), "overhead": pd.DataFrame(),
         "comparisons": comparisons})}
    first = found["What a first call costs"].set_index("variant")
    assert first.compiling_vs_one.to_dict() == {"one": "", "other": "0.500x [0.400, 0.600]"}
    assert first.compiling_share.to_dict() == {"one": 600 / 900, "other": 0.25}


def test_a_pair_compared_apart_from_the_floor_gets_its_own_figure(tmp_path):
    """A walk's loops, synced each step and at the end, were drawn only over the floor's single call."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER.replace('"other": other}', '"other": other, "third": third}')
                 + "third = other\nEXPECT = ['third faster than other']\n").path
    configs = {"n8": 8, "n16": 16}
    steps = pd.DataFrame([{"config_id": c, "axes": "n", "n": n, "variant": v, "mode": "blocked", "demonstration": "",
                           "median_ms": 1.0, "median_ci_low_ms": 0.9, "median_ci_high_ms": 1.1}
                          for c, n in configs.items() for v in ("one", "other", "third")])
    comp = pd.DataFrame([{"config_id": c, "axes": "n", "n": n, "mode": "blocked", "variant": v, "baseline": b,
                          "demonstration": "", "ratio": 1.2, "ratio_ci_low": 1.1, "ratio_ci_high": 1.3}
                         for c, n in configs.items() for v, b in (("other", "one"), ("third", "one"),
                                                                   ("third", "other"))])
    figures = Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(), "comparisons": comp})
    (pair,) = [t.get_text() for t in figures["pair_ratios"].legends[0].get_texts()]
    assert pair == "third / other" and "pair_ratios" in Report.FIGURES
    plain = bench(tmp_path, ONE_AND_OTHER, name="plain").path  # every pair with the floor: no such figure, no error
    assert "pair_ratios" not in Report(spec("plain", plain)).figures(
        {"steps": steps[steps.variant != "third"], "overhead": pd.DataFrame(),
         "comparisons": comp[comp.variant == "other"]})


def _loop_refused(tmp_path, expect: list[str], **block) -> str:
    """What the config check says of examples/vmap_loop.py with `expect` for its EXPECT, base batch 8 width 4."""
    path = tmp_path / "loop.py"
    path.write_text((ROOT / "examples/vmap_loop.py").read_text().replace(
        'EXPECT = ["vmap at least 2x faster than loop", "vmap compiles faster than loop"]', f"EXPECT = {expect!r}"))
    with pytest.raises(InvalidConfig) as refused:
        require_valid(_config({"mine": {"file": str(path), "base": {"batch": 8, "width": 4}, **block}}), SCHEMA)
    return str(refused.value)


def test_an_expectation_at_a_value_no_configuration_times_is_refused_before_any_job(files, tmp_path):
    """Else it reads "not measured" once every timing job has run."""
    said = _loop_refused(tmp_path, ["vmap faster than loop at batch=64", "vmap faster than loop at batch=32.0",
                                    "vmap uses less memory than loop at batch=16"], sweep={"batch": [32]})
    assert said == ("2 problems in the config:\nconfig studies.mine: EXPECT 'vmap faster than loop at batch=64' is "
                    "judged at batch=64, which no configuration of the block times (batch: 8, 32): add it to `sweep` "
                    "or `points`\nconfig studies.mine: EXPECT 'vmap uses less memory than loop at batch=16' is "
                    "judged at batch=16, which no configuration of the block times (batch: 8, 32): add it to `sweep` "
                    "or `points`")


def test_an_unplaced_expectation_is_said_beside_a_sentence_that_does_not_read(files, tmp_path):
    """Every problem at once: the file refused for one sentence, its readable ones still checked for their `at`."""
    said = _loop_refused(tmp_path, ["vmap faster than loop at batch=64", "vmap 2x slower than lop"])
    assert said.startswith("2 problems in the config:\n") and "'vmap 2x slower than lop': not an expectation" in said
    assert "EXPECT 'vmap faster than loop at batch=64' is judged at batch=64, which no configuration" in said


def test_a_sentence_refused_for_its_axis_is_not_also_judged_for_its_value(files, tmp_path):
    """`at bath=64` is one problem (no such parameter), not also "no configuration times bath=64"."""
    said = _loop_refused(tmp_path, ["vmap faster than loop at bath=64"])
    assert said.startswith("1 problem in the config:\n") and "'bath' is not a parameter" in said


def test_the_plans_are_drawn_in_their_parts_at_the_base(tmp_path):
    """A user's remat walk: the total (weights, gradients) hid the temporaries remat trades; the base's plans are
    stacked as arguments, outputs not donated, and temporaries."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER).path
    mib = 2**20
    steps = pd.DataFrame({"config_id": "n8", "axes": "n", "n": 8, "variant": ["one", "other"], "mode": "blocked",
                          "demonstration": "", "median_ms": [0.3, 0.2], "median_ci_low_ms": [0.28, 0.19],
                          "median_ci_high_ms": [0.32, 0.21], "program_argument_bytes": [8 * mib, 8 * mib],
                          "program_output_bytes": [8 * mib, 8 * mib], "program_donated_bytes": [0, 4 * mib],
                          "program_temporary_bytes": [10 * mib, 2 * mib], "program_total_bytes": [26 * mib, 14 * mib]})
    figures = Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(), "comparisons":
                                                   pd.DataFrame(columns=["config_id", "mode", "variant", "baseline",
                                                                         "axes", "demonstration"])})
    ax = figures["memory_parts"].axes[0]
    assert sorted(round(p.get_height(), 3) for p in ax.patches) == [2, 4, 8, 8, 8, 10]  # MiB, each part a bar
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["arguments", "outputs (not donated)",
                                                                   "temporaries"]
    assert "memory_parts" not in Report(spec("bench", path)).figures({"steps": steps.drop(columns=[
        c for c in steps if c.startswith("program_")]), "overhead": pd.DataFrame(), "comparisons": pd.DataFrame(
        columns=["config_id", "mode", "variant", "baseline", "axes", "demonstration"])})


def test_the_planned_temporaries_are_drawn_over_each_swept_axis_beside_the_totals(tmp_path):
    """A walk's remat over depth: the totals were drawn over the sweep, the temporaries it trades at the base only."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER).path
    kib = 2**10
    steps = pd.DataFrame({"config_id": ["n8", "n8", "n16", "n16"], "axes": "n", "n": [8, 8, 16, 16],
                          "variant": ["one", "other"] * 2, "mode": "blocked", "demonstration": "",
                          "median_ms": 0.3, "median_ci_low_ms": 0.28, "median_ci_high_ms": 0.32,
                          "program_temporary_bytes": [10 * kib, 2 * kib, 40 * kib, 8 * kib],
                          "program_total_bytes": [30 * kib, 22 * kib, 90 * kib, 58 * kib],
                          "program_argument_bytes": 10 * kib, "program_output_bytes": 10 * kib,
                          "program_donated_bytes": 0})
    comparisons = pd.DataFrame({"config_id": ["n8", "n16"], "axes": "n", "n": [8, 16], "variant": "other",
                                "baseline": "one", "mode": "blocked", "demonstration": "", "ratio": 1.0,
                                "ratio_ci_low": 0.9, "ratio_ci_high": 1.1})
    figures = Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(),
                                                   "comparisons": comparisons})
    (ax,) = [a for a in figures["memory_temporaries"].axes if a.get_lines()]
    drawn = sorted(round(y) for line in ax.get_lines() for y in line.get_ydata() if len(line.get_ydata()) == 2)
    assert drawn == [2, 8, 10, 40]  # KiB, one line a variant
    assert "temporaries" in ax.get_ylabel() and "memory" in figures and ax.get_yscale() == "log"
    steps.loc[steps.variant == "other", "program_temporary_bytes"] = 0  # an elementwise call plans none: drawn
    (ax,) = [a for a in Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(),
                                                              "comparisons": comparisons})["memory_temporaries"].axes
             if a.get_lines()]
    assert ax.get_yscale() == "linear" and sorted(y for line in ax.get_lines() for y in line.get_ydata()
                                                   if len(line.get_ydata()) == 2) == [0, 0, 10, 40]


def test_first_runs_compile_ratios_are_drawn_over_each_swept_axis(tmp_path):
    """A re-walk: the compile-time ratios a sentence judges were in a table only, not drawn over the sweep."""
    import pandas as pd

    from jaxpitfalls.benchfile.report import Report
    from jaxpitfalls.benchfile.spec import spec

    path = bench(tmp_path, ONE_AND_OTHER + "FIRST_RUN = True\n").path
    steps = pd.DataFrame({"config_id": ["n8", "n8", "n16", "n16"] * 2, "axes": "n", "n": [8, 8, 16, 16] * 2,
                          "variant": ["one", "other"] * 4, "mode": ["first_run"] * 4 + ["blocked"] * 4,
                          "demonstration": "", "median_ms": 300.0, "median_ci_low_ms": 280.0,
                          "median_ci_high_ms": 320.0})
    comparisons = pd.DataFrame({"config_id": ["n8", "n16"] * 2, "axes": "n", "n": [8, 16] * 2, "variant": "other",
                                "baseline": "one", "mode": ["first_run"] * 2 + ["blocked"] * 2, "demonstration": "",
                                "ratio": 1.0, "ratio_ci_low": 0.9, "ratio_ci_high": 1.1,
                                "compile_ratio": [1.6, 0.6, None, None], "compile_ratio_ci_low": [1.5, 0.5, None, None],
                                "compile_ratio_ci_high": [1.7, 0.7, None, None]})
    figures = Report(spec("bench", path)).figures({"steps": steps, "overhead": pd.DataFrame(),
                                                   "comparisons": comparisons})
    (ax,) = [a for a in figures["compile_ratios"].axes if a.get_lines()]
    (drawn,) = [container.lines[0].get_ydata() for container in ax.containers if container.get_label() == "other"]
    assert sorted(drawn) == [0.6, 1.6]
    assert "compiling / one's" in ax.get_ylabel()
    assert "compile_ratios" not in Report(spec("bench", path)).figures(
        {"steps": steps, "overhead": pd.DataFrame(), "comparisons": comparisons.drop(columns=[
            c for c in comparisons if c.startswith("compile_")])})

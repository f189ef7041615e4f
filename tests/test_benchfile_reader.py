"""A benchmark file is read without running it: its axes, variants, floor and expectations, or a refusal naming the
file, the line and what to change; an expectation's sentence gives the edges its ratio is judged against."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from jaxpitfalls.benchfile.expectations import parse_expectation
from jaxpitfalls.benchfile.reader import NO_DEFAULT, BenchFileRefused, read

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GOOD = '''"""Two ways to square."""
import jax.numpy as jnp


def setup(n, dtype="float32", scale=2.0, shape=(3,)):
    return jnp.ones((n,), dtype)


def square(x):
    return lambda: x * x


def power(x):
    return lambda: x ** 2


VARIANTS = {"square": square, "power": power}
'''


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bench.py"
    path.write_text(text)
    return path


def test_a_file_gives_its_axes_variants_floor_and_docstring(tmp_path):
    bench = read(write(tmp_path, GOOD + 'FLOOR = "power"\nEXPECT = ["square within 5% of power"]\n'))
    assert [(a.name, a.default) for a in bench.axes] == [("n", NO_DEFAULT), ("dtype", "float32"), ("scale", 2.0),
                                                         ("shape", (3,))]
    assert bench.variants == {"square": "square", "power": "power"} and bench.floor == "power"
    assert bench.doc == "Two ways to square." and [e.key for e in bench.expectations] == ["square_within_5_of_power"]


def test_a_list_of_functions_names_each_variant_by_its_function_and_the_first_is_the_floor(tmp_path):
    bench = read(write(tmp_path, GOOD.replace('{"square": square, "power": power}', "[power, square]")))
    assert list(bench.variants) == ["power", "square"] and bench.floor == "power"


@pytest.mark.parametrize("examples", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_every_example_reads(examples):
    bench = read(examples)
    assert len(bench.variants) >= 2 and bench.expectations


@pytest.mark.parametrize("edit, said", [
    (lambda s: s.replace("def setup(", "def build("), "defines no setup"),
    (lambda s: "from base import setup\n" + s.replace("def setup(", "def build("), ":1: defines no setup(<axes>)"
     ": the function that builds the variants' inputs from one configuration's values (e.g. def setup(width, "
     "batch): ...) (it imports one: the file is read, not run"),
    (lambda s: s.replace('"power": power}', '"power": cube}'), "variant 'power': 'cube' is not defined in the file"),
    (lambda s: s.replace('{"square": square, "power": power}', "make()"), "VARIANTS must be a dict"),
    (lambda s: s.replace(', "power": power}', "}"), "a benchmark compares at least two"),
    (lambda s: s.replace('"power": power}', '"my power": power}'), "variant 'my power': a variant's name is an"),
    (lambda s: s.replace('"power": power}', '"power": lambda x: x}'), "name a function of the file"),
    (lambda s: s + 'FLOOR = "cube"\n', "FLOOR 'cube' is not one of the variants"),
    (lambda s: s + 'EXPECT = ["square is better than power"]\n', "not an expectation this reads"),
    (lambda s: s + 'EXPECT = ["square faster than cube"]\n', "'cube' is not one of the variants"),
    (lambda s: s + 'EXPECT = ["square at least 0.5x faster than power"]\n', "is no change"),
    (lambda s: s + 'TOLERANCE = {"rtol": 1e-3, "ulp": 2}\n', "TOLERANCE takes rtol and atol"),
    (lambda s: s + 'OUTPUTS_DIFFER = {"square": "it squares"}\n', "OUTPUTS_DIFFER 'square'"),
    (lambda s: s + 'RECOMPILES = {"square": "the floor"}\n', "RECOMPILES 'square': name a variant other than the "
     "floor, and say why it compiles in every call"),
    (lambda s: s + 'RECOMPILES = {"power": ""}\n', "RECOMPILES 'power'"),
    (lambda s: s + 'RECOMPILES = ["power"]\n', "RECOMPILES must be a dict"),
    (lambda s: s + 'SAME_OUTPUTS_AS = {"power": "square"}\n', "SAME_OUTPUTS_AS 'power': name it here or in "
     "OUTPUTS_DIFFER, not both, and here only against the floor's or an OUTPUTS_DIFFER variant's outputs"),
    (lambda s: s.replace('"power": power}', '"power": power, "cube": power_too}') + "power_too = power\n"
     'SAME_OUTPUTS_AS = {"power": "cube", "cube": "power"}\n', "SAME_OUTPUTS_AS 'power': name it here"),  # a cycle
    (lambda s: s + 'SAME_OUTPUTS_AS = {"power": ["square"]}\n', "SAME_OUTPUTS_AS 'power': ['square']: name"),
    (lambda s: s + 'SAME_OUTPUTS_AS = {"power": "cube"}\n', "SAME_OUTPUTS_AS 'power': 'cube': name a variant"),
    (lambda s: s + 'SAME_OUTPUTS_AS = {"square": "power"}\n', "SAME_OUTPUTS_AS 'square': 'power': name a variant "
     "other than the floor"),
    (lambda s: s.replace('"power": power}', '"power": square}'), "'square' builds 'square' already"),
    (lambda s: s + "VARIANTS = VARIANTS | {}\n", "VARIANTS must be a dict"),
    (lambda s: s.replace("def setup(n,", "def setup(n, /,"), "passed by name"),
    (lambda s: s + "def broken(:\n", "not valid Python"),
    (lambda s: s.replace("def setup(n,", "def setup(mode,"), "setup's axis 'mode' has a name the workflow uses"),
    (lambda s: s + 'EXPECT = "square faster than power"\n', "EXPECT must be a list or tuple, not str"),
    (lambda s: s + 'TOLERANCE = {"rtol": None}\n', "TOLERANCE takes rtol and atol, numbers of at least 0"),
    (lambda s: s + 'EXPECT = [\n    "square faster than power",\n    "square of power",\n]\n',
     "bench.py:20: EXPECT 'square of power'"),
])
def test_a_file_that_cannot_be_timed_is_refused_naming_it_and_what_to_change(tmp_path, edit, said):
    path = write(tmp_path, edit(GOOD))
    with pytest.raises(BenchFileRefused, match=str(path)) as refused:
        read(path)
    assert said in str(refused.value)


def test_a_badly_named_variant_is_one_problem_not_also_too_few_variants(tmp_path):
    path = write(tmp_path, GOOD.replace('"power": power}', '"po-wer": power}'))
    with pytest.raises(BenchFileRefused) as refused:
        read(path)
    assert "'po-wer': a variant's name is an identifier" in str(refused.value)
    assert "at least two" not in str(refused.value)
    path = write(tmp_path, GOOD.replace('{"square": square, "power": power}', "{f.__name__: f for f in [square]}"))
    with pytest.raises(BenchFileRefused, match="written out .the file is read without running it"):
        read(path)


def test_every_problem_after_the_variants_is_said_at_once(tmp_path):
    path = write(tmp_path, GOOD + 'FLOOR = "cube"\nTOLERANCE = {"atl": 1}\nOUTPUTS_DIFFER = {"cube": "x"}\n'
                                  'EXPECT = ["square of power"]\n')
    with pytest.raises(BenchFileRefused) as refused:
        read(path)
    said = str(refused.value).splitlines()
    assert len(said) == 4 and [w in line for w, line in zip(("FLOOR", "TOLERANCE", "OUTPUTS_DIFFER", "EXPECT"), said,
                                                             strict=True)] == [True] * 4
    # a variant's builder wrong, the other problems are still read (the names stand)
    path = write(tmp_path, GOOD.replace('"power": power}', '"power": cube}') + 'FLOOR = "cube"\n')
    with pytest.raises(BenchFileRefused) as refused:
        read(path)
    said = str(refused.value).splitlines()
    assert len(said) == 2 and "'cube' is not defined" in said[0] and "FLOOR 'cube'" in said[1]
    # an unknown FLOOR is one problem: the first variant is not taken for the floor OUTPUTS_DIFFER is read against
    first = write(tmp_path, GOOD + 'FLOOR = "cube"\nOUTPUTS_DIFFER = {"square": "it squares"}\n')
    with pytest.raises(BenchFileRefused) as refused:
        read(first)
    assert len(str(refused.value).splitlines()) == 1


def test_a_missing_file_is_refused_naming_it(tmp_path):
    with pytest.raises(BenchFileRefused, match="cannot be read"):
        read(tmp_path / "nowhere.py")


VARIANTS = ("a", "b")


@pytest.mark.parametrize("sentence, low, high, faster", [
    ("a faster than b", None, 1.0, True),
    ("a slower than b", 1.0, None, False),
    ("a at least 2x faster than b", None, 0.5, True),
    ("a is at least 10% slower than b", 1.1, None, False),
    ("a no more than 5% slower than b", None, 1.05, False),
    ("a at most 3x faster than b", 1 / 3, None, True),
    ("a within 4% of b", 1 / 1.04, 1.04, False),
])
def test_a_sentence_bounds_t_a_over_t_b(sentence, low, high, faster):
    e = parse_expectation(sentence, VARIANTS)
    assert (e.a, e.b, e.faster, e.mode) == ("a", "b", faster, "blocked")
    for found, wanted in ((e.low, low), (e.high, high)):
        assert found is None if wanted is None else math.isclose(found, wanted)


def test_an_expectation_is_judged_and_said_as_its_sentence_speaks():
    """"a at least 20x faster than b" reads t(b) / t(a) above 20 in its rule, its number and what would decide it
    (an interval of the speed-up said to cross 0.05, t(a) / t(b)'s edge, read as nonsense)."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import judge

    e = parse_expectation("a at least 20x faster than b", VARIANTS)
    assert e.spoken == ("t(b) / t(a)", 20, None) and e.rule.endswith("the 95% interval wholly above 20")
    row = pd.Series({"ratio": 1 / 4.724, "ratio_ci_low": 1 / 273.977, "ratio_ci_high": 1 / 0.081})

    class OneRow:
        comp = pd.DataFrame({"config_id": ["n8"], "variant": ["a"], "baseline": ["b"], "mode": ["blocked"]})
        tables = {"checks": pd.DataFrame({"config_id": ["n8"], "processes": [2]})}
        base_id = "n8"

        def pair(self, a, b, config_id=None, mode=None):
            return row

    judged = judge(e, OneRow())
    assert judged.measured.startswith("t(b) / t(a) = 4.724x [0.081, 274.0]")
    assert "crosses 20 (centred below it);" in judged.reason
    slower = parse_expectation("a no more than 5% slower than b", VARIANTS)
    assert slower.spoken == ("t(a) / t(b)", None, 1.05) and slower.rule.endswith("wholly below 1.05")


def test_a_sentence_at_a_swept_value_is_judged_at_that_configuration_and_an_unknown_one_is_refused(tmp_path):
    """A user's walk: to say "scan faster than unrolled at the longest length" the length had to be the base."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import configuration, judge

    e = parse_expectation("a faster than b at n=32 when pipelined", VARIANTS)
    assert (e.at, e.mode) == (("n", "32"), "pipelined") and "t(b) / t(a) at n=32, pipelined mode" in e.rule
    rows = {"n8": (1.0, 0.9, 1.1), "n32": (0.5, 0.45, 0.55)}  # t(a) / t(b) at each configuration

    class TwoConfigs:
        comp = pd.DataFrame({"config_id": ["n8", "n32"], "variant": ["a", "a"], "baseline": ["b", "b"],
                             "mode": "pipelined", "n": [8, 32], "axes": ["n", "n"]})
        tables = {"checks": pd.DataFrame({"config_id": ["n8", "n32"], "processes": [2, 3]})}
        base_id = "n8"

        def pair(self, a, b, config_id=None, mode=None):
            return pd.Series(dict(zip(("ratio", "ratio_ci_low", "ratio_ci_high"), rows[config_id], strict=True)))

    assert configuration(e, TwoConfigs()) == "n32" and configuration(parse_expectation(
        "a faster than b at n=32.0", VARIANTS), TwoConfigs()) == "n32"
    assert parse_expectation("a faster than b at n=-1", VARIANTS).key != parse_expectation(
        "a faster than b at n=1", VARIANTS).key  # not "states one expectation twice"
    judged = judge(e, TwoConfigs())
    assert judged.verdict == "reproduced" and judged.measured.startswith("t(b) / t(a) = 2.000x [1.818, 2.222] at n=32")
    # a walk's: a sync's cost gone at the wider size was said nowhere; the rule at the others, as memory's is
    assert judged.measured.endswith("; at the other configurations it holds at 0, fails at 0, undecided at 1 of 1 "
                                    "(n8 1.000x [0.909, 1.111])")  # crossing 1 there: undecided, not failed
    rows["n8"] = (1.0, 0.0, math.inf)  # one process there: no interval, a speed-up's ends flipped without a fault
    assert judge(e, TwoConfigs()).measured.endswith("undecided at 1 of 1 (n8 1.000x [0.000, inf])")
    rows["n8"] = (2.0, 1.8, 2.2)  # slower there: fails
    assert judge(e, TwoConfigs()).measured.endswith("holds at 0 of 1 (n8 0.500x [0.455, 0.556])")
    absent = judge(parse_expectation("a faster than b at n=64", VARIANTS), TwoConfigs())
    assert absent.verdict == "not measured" and "no configuration at n=64 in this run" in absent.measured
    with pytest.raises(BenchFileRefused, match=r"'width' is not a parameter of setup \(n, dtype, scale, shape\)"):
        read(write(tmp_path, GOOD + 'EXPECT = ["square faster than power at width=8"]\n'))


def test_a_sentence_ending_when_pipelined_is_judged_in_that_mode():
    assert parse_expectation("b faster than a when pipelined", VARIANTS).mode == "pipelined"
    assert parse_expectation("b faster than a when first run", VARIANTS).mode == "first_run"
    assert parse_expectation("b within 5% of a when First_Run.", VARIANTS).mode == "first_run"
    assert parse_expectation("b faster than a when first-run", VARIANTS).mode == "first_run"


def test_a_compiles_sentence_judges_xla_compile_times_in_first_runs_and_only_there(tmp_path):
    """A walk's question, "does scan compile faster than the unrolled loop?", had its ratio with an interval in
    comparisons.csv but no sentence to judge it and no column in the report."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import judge

    e = parse_expectation("a compiles at least 20% faster than b at n=32", VARIANTS)
    assert (e.compiling, e.mode, e.at, e.faster) == (True, "first_run", ("n", "32"), True)
    assert e.rule == ("compiling(b) / compiling(a) at n=32, XLA's compile time in first runs: the 95% interval "
                      "wholly above 1.2")
    assert parse_expectation("a compiles within 10% of b", VARIANTS).mode == "first_run"
    assert parse_expectation("a compile within 10% of b", VARIANTS).compiling  # a walk's "scan compile ..."
    row = pd.Series({"ratio": 9.0, "ratio_ci_low": 8.0, "ratio_ci_high": 10.0,  # the first call's whole time
                     "compile_ratio": 0.5, "compile_ratio_ci_low": 0.4, "compile_ratio_ci_high": 0.6})

    class Stored:
        """One row of the pair, stored as t(a) / t(b) or, `reversed`, as t(b) / t(a)."""

        tables = {"checks": pd.DataFrame({"config_id": ["n32"], "processes": [3]})}
        base_id = "n32"

        def __init__(self, reversed_: bool):
            first, second = ("b", "a") if reversed_ else ("a", "b")
            self.comp = pd.DataFrame({"config_id": ["n32"], "variant": [first], "baseline": [second],
                                      "mode": "first_run", "n": [32],
                                      "axes": ["n"]})
            self.row = row.copy()
            if reversed_:
                for of in ("", "compile_"):
                    self.row[[f"{of}ratio", f"{of}ratio_ci_low", f"{of}ratio_ci_high"]] = [
                        1 / row[f"{of}ratio"], 1 / row[f"{of}ratio_ci_high"], 1 / row[f"{of}ratio_ci_low"]]

        def pair(self, a, b, config_id=None, mode=None):
            assert (a, b) == tuple(self.comp.iloc[0][["variant", "baseline"]])
            self.mode = mode
            return self.row

    for reversed_ in (False, True):
        judged = judge(e, stored := Stored(reversed_))
        assert stored.mode == "first_run" and judged.verdict == "reproduced" and judged.measured.startswith(
            "compiling(b) / compiling(a) = 2.000x [1.667, 2.500]"), judged.measured
    for nothing in (0.0, float("nan"), float("inf")):  # a side that compiled in no time XLA counted: either way
        for reversed_ in (False, True):
            stored = Stored(reversed_)
            stored.row["compile_ratio"] = nothing
            judged = judge(e, stored)
            assert (judged.verdict, judged.measured) == ("not measured", "not measured: no compile-time ratio at "
                                                         "n=32 (n32)"), (nothing, reversed_)
    row["ratio"] = float("nan")
    assert judge(parse_expectation("a faster than b", VARIANTS), Stored(False)).measured.endswith(
        "no ratio at the base configuration n32")  # a time sentence's, not said a compile time's
    row[["compile_ratio", "compile_ratio_ci_low", "compile_ratio_ci_high"]] = [0.72, 0.6, 0.85]
    row["compile_ratio_df"] = 2.0  # two processes, their own spread: processes decide it, not rounds
    assert "2 degree(s) of freedom over 3 processes: about" in judge(e, Stored(False)).reason
    with pytest.raises(ValueError, match="leave 'when ...' out"):
        parse_expectation("a compiles faster than b when pipelined", VARIANTS)
    with pytest.raises(ValueError, match=r"'unroled' is not one of the variants \['unrolled', 'scan'\]: did you mean "
                                         r"'unrolled'\?"):  # a walk's typo
        parse_expectation("scan compiles faster than unroled", ("unrolled", "scan"))
    with pytest.raises(BenchFileRefused, match=r"compiling is timed only where a file sets FIRST_RUN = True, "
                                                 r"which this one does not"):
        read(write(tmp_path, GOOD + 'EXPECT = ["square compiles faster than power"]\n'))


@pytest.mark.parametrize("sentence, low, high", [
    ("a uses less memory than b", None, 1.0),
    ("a uses at least 40% less memory than b", None, 0.6),  # a peak 0.6 times b's, not 1 / 1.4
    ("a uses at least 2x less memory than b", None, 0.5),
    ("a uses at least 10% less memory than b", None, 0.9),  # its edge a float's last bit off 0.9: held at 0.9
    ("a uses no more than 10% more memory than b", None, 1.1),
    ("a uses more memory than b", 1.0, None),
])
def test_a_memory_sentence_bounds_the_planned_totals_ratio_and_is_decided_exactly(sentence, low, high, tmp_path):
    """Judged by the engine (which refuses a verdict its words contradict): yes or no on exact totals, not
    measured where a variant has no plan or runs several programs a call."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import judges
    from jaxpitfalls.contract.verdicts import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED

    e = parse_expectation(sentence, VARIANTS)
    assert e.memory and e.spoken[0] == "memory(a) / memory(b)"
    for found, wanted in ((e.low, low), (e.high, high)):
        assert found is None if wanted is None else math.isclose(found, wanted)
    edge = low or high
    path = tmp_path / "bench.py"
    path.write_text("def setup(n):\n    return n\n\ndef a(n):\n    return lambda: n\n\ndef b(n):\n"
                    f"    return lambda: n\n\nVARIANTS = {{'a': a, 'b': b}}\nEXPECT = [{sentence!r}]\n")
    checks = pd.DataFrame({"config_id": ["n8"], "processes": [2], "demonstration": [""], "axes": ["n"], "n": [8]})

    def judged(totals, programs=(1, 1), devices=(1, 1)) -> tuple[str, str]:
        steps = pd.DataFrame({"config_id": ["n8", "n8", "n16", "n16"], "mode": "blocked", "variant": ["a", "b"] * 2,
                              "demonstration": "", "program_total_bytes": [*totals, 2 * 2**20, 2**20],
                              "program_programs": [*programs, 1, 1], "program_devices": [*devices, 1, 1]})
        (found,) = judges("bench", path).judge({"checks": checks, "steps": steps, "comparisons": pd.DataFrame(
            columns=["config_id", "variant", "baseline", "mode", "demonstration"])})
        return found.verdict, found.measured

    # exactly at a sized edge holds; "less than" at 1 does not
    assert judged([edge * 2**20, 2**20])[0] == (REPRODUCED if edge != 1 else NOT_REPRODUCED)
    # the other configuration (a twice b's) is said too; a sharded call's plan is each device's, said with its span
    said = judged([edge * 2**20, 2**20], devices=(2, 1))[1]
    doubled = (low is None or 2 > low) and (high is None or 2 < high)
    assert f"at the other configurations it holds at {int(doubled)} of 1 (n16 2.000x)" in said
    assert "at the base configuration n8 (" in said  # which configuration the base is, named
    assert "per device" in said and "a spans 2 device(s), b 1" in said
    assert judged([2**20, 2**20], programs=(1, 4)) == (  # a loop of calls: arrays between programs
        NOT_MEASURED, "not measured: b runs 4 programs a call, holding arrays between them that no plan counts "
                      "(jitting the whole call plans it as one)")
    verdict, said = judged([float("nan"), 2**20])  # NumPy: no program
    assert verdict == NOT_MEASURED and "no memory plan for ['a']" in said


def test_a_memory_sentence_at_a_swept_value_is_judged_there_and_the_base_counted_beside(tmp_path):
    """A walk's remat saved 11% of temporaries at depth 2 and 16% at depth 8: a sentence could name only the base."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import judges
    from jaxpitfalls.contract.verdicts import REPRODUCED

    sentence = "a uses at least 40% less temporary memory than b at n=16"
    e = parse_expectation(sentence, VARIANTS)
    assert (e.memory, e.part, e.at) == (True, "temporary", ("n", "16")) and " at n=16, the temporaries " in e.rule
    path = tmp_path / "bench.py"
    path.write_text("def setup(n):\n    return n\n\ndef a(n):\n    return lambda: n\n\ndef b(n):\n"
                    f"    return lambda: n\n\nVARIANTS = {{'a': a, 'b': b}}\nEXPECT = [{sentence!r}]\n")
    steps = pd.DataFrame({"config_id": ["n8", "n8", "n16", "n16"], "mode": "blocked", "variant": ["a", "b"] * 2,
                          "demonstration": "", "program_total_bytes": 4 * 2**20,
                          "program_temporary_bytes": [0.9 * 2**20, 2**20, 0.5 * 2**20, 2**20],
                          "program_programs": 1, "program_devices": 1})
    comparisons = pd.DataFrame({"config_id": ["n8", "n16"], "variant": "a", "baseline": "b", "mode": "blocked",
                                "demonstration": "", "n": [8, 16], "axes": "n"})
    checks = pd.DataFrame({"config_id": ["n8", "n16"], "processes": 2, "demonstration": "", "axes": "n", "n": [8, 16]})
    (found,) = judges("bench", path).judge({"checks": checks, "steps": steps, "comparisons": comparisons})
    assert found.verdict == REPRODUCED, found.measured
    assert found.measured.startswith("temporaries(a) / temporaries(b) = 0.500x at n=16 (n16) (")
    assert found.measured.endswith("at the other configurations it holds at 0 of 1 (n8 0.900x)")


def test_a_temporary_memory_sentence_is_judged_on_the_temporaries_alone(tmp_path):
    """A user's remat walk: checkpointing trades temporaries (activations), and a total of weights and gradients
    it cannot shrink hides it: `less temporary memory than` bounds the temporaries' ratio."""
    import pandas as pd

    from jaxpitfalls.benchfile.judges import judges
    from jaxpitfalls.contract.verdicts import NOT_MEASURED, REPRODUCED

    e = parse_expectation("a uses at least 50% less temporary memory than b", VARIANTS)
    assert e.memory and e.part == "temporary" and e.spoken == ("temporaries(a) / temporaries(b)", None, 0.5)
    assert parse_expectation("a uses less memory than b", VARIANTS).part == "total"
    path = tmp_path / "bench.py"
    path.write_text("def setup(n):\n    return n\n\ndef a(n):\n    return lambda: n\n\ndef b(n):\n"
                    "    return lambda: n\n\nVARIANTS = {'a': a, 'b': b}\n"
                    "EXPECT = ['a uses at least 50% less temporary memory than b']\n")
    checks = pd.DataFrame({"config_id": ["n8"], "processes": [2], "demonstration": [""], "axes": ["n"], "n": [8]})

    def judged(temporaries: list[float]):
        steps = pd.DataFrame({"config_id": "n8", "mode": "blocked", "variant": ["a", "b"], "demonstration": "",
                              "program_total_bytes": [18 * 2**20, 26 * 2**20], "program_temporary_bytes": temporaries,
                              "program_programs": 1, "program_devices": 1})
        (found,) = judges("bench", path).judge({"checks": checks, "steps": steps, "comparisons": pd.DataFrame(
            columns=["config_id", "variant", "baseline", "mode", "demonstration"])})
        return found

    held = judged([2 * 2**20, 10 * 2**20])  # totals 0.69x: a total sentence of 50% less would be no
    assert held.verdict == REPRODUCED and held.measured.startswith("temporaries(a) / temporaries(b) = 0.200x")
    assert judged([0, 0]).verdict == NOT_MEASURED


@pytest.mark.parametrize("sentence", ["a faster than a", "a within 5% faster than b", "a at least faster than b",
                                      "a uses at least 100% less memory than b", "a uses less memory than b when "
                                      "pipelined"])
def test_a_sentence_that_says_nothing_measurable_is_refused(sentence):
    with pytest.raises(ValueError):
        parse_expectation(sentence, VARIANTS)

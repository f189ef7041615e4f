"""The trace parser on a real trace captured here: the parts add up and name the right components."""

from __future__ import annotations

import time

import pytest

from jaxpitfalls import traces
from jaxpitfalls.breakdown import find_xplanes
from jaxpitfalls.harness import protocol, tracing
from jaxpitfalls.studies.dispatch.spec import SPEC

COMPONENTS = SPEC.trace_components


@pytest.fixture(scope="module")
def breakdown(tiny_runners, tmp_path_factory):
    protocol.warm_up(tiny_runners, steps=1, steps_per_sample=1)
    out = tracing.capture(tiny_runners, 2, tmp_path_factory.mktemp("t") / "trace")
    [xplane] = find_xplanes(out)
    rows = traces.parse(xplane, COMPONENTS)
    return {(r["variant"], r["component"]): r for r in rows}, xplane


@pytest.mark.slow
def test_no_part_of_a_traced_step_is_negative(breakdown):
    """`rest` is the remainder, so the parts add up to the step by construction; a child event counted in two
    components, or outside its parent, would leave one below 0."""
    rows, _ = breakdown
    for variant in {v for v, _ in rows}:
        parts = [r for (v, _), r in rows.items() if v == variant]
        assert all(r["exclusive_ms"] >= -1e-6 for r in parts)
        assert parts[0]["traced_steps"] == 2


@pytest.mark.slow
def test_filter_jit_pays_pre_and_postprocessing_that_the_floor_does_not(breakdown):
    rows, _ = breakdown
    for component in ("_preprocess", "hashable_partition", "_postprocess", "combine"):
        assert rows[("filter_jit", component)]["inclusive_ms"] > 0
        assert rows[("jit_flat", component)]["inclusive_ms"] == 0
    assert rows[("jit_static_arg", "static_hash")]["inclusive_ms"] > 0
    assert rows[("jit_partition", "static_hash")]["inclusive_ms"] == 0
    assert rows[("jit_flat", "executable")]["inclusive_ms"] > 0  # the program's run is attributed (its share
    # of the step depends on how busy the machine is: asserting one failed beside other work)


def test_a_benchmark_files_wait_is_the_wait_and_copies_to_the_host_are_their_own():
    """Only block_until_ready waits; device_get and NumPy copies go to the host, device_put and a NumPy
    argument's copy to the device; JAX's other Python (an eager grad's) is no wait."""
    from pathlib import Path

    from jaxpitfalls.benchfile.spec import components

    parts = components(Path("mine.py"))
    assert traces.classify("$api.py:3125 block_until_ready", parts) == "wait"
    assert traces.classify("$api.py:2991 device_get", parts) == "to_host"
    assert traces.classify("$array.py:650 _value", parts) == "to_host"
    # a NumPy argument's copy, inside the jitted call's dispatch (a user's walk read it as dispatch)
    assert traces.classify("DevicePut", parts) == traces.classify("H2D Dispatch", parts) == "to_device"
    assert traces.classify("$api.py:2700 device_put", parts) == "to_device"
    # pmap's argument copies, in the file that compiles, and a comprehension within them: its function's
    assert traces.classify("$pxla.py:86 shard_args", parts) == "to_device"
    assert traces.classify("$pxla.py:177 _shard_np_array", parts) == "to_device"  # a NumPy argument's
    assert traces.classify("$pxla.py:227 <listcomp>", parts) is None
    assert traces.classify("$pxla.py:2100 lower_sharding_computation", parts) == "compiling"
    assert traces.classify("$api.py:400 grad_f", parts) is None
    assert traces.classify("$mine.py:7 step", parts) == "your_code"


def test_events_are_matched_by_file_and_function_not_line():
    assert traces.classify("$_jit.py:106 _postprocess", COMPONENTS) == "_postprocess"
    assert traces.classify("$_jit.py:9999 _postprocess", COMPONENTS) == "_postprocess"
    assert traces.classify("$other.py:106 _postprocess", COMPONENTS) is None
    assert traces.classify("PjitFunction(train_step)", COMPONENTS) == "executable"
    assert traces.classify("$<generated_flatten_Linear>:2 flatten", COMPONENTS) == "tree_flatten"


@pytest.mark.slow
def test_a_second_capture_into_one_directory_replaces_the_first_whole(breakdown, tiny_runners, tmp_path):
    """The profiler names its output by the second it starts: captured straight into one directory, a
    rerun a second later would leave two traces there (and within the same second overwrite the first in
    place). Each capture goes to a fresh directory moved into place whole: one trace, the newest."""
    out = tmp_path / "trace"
    [first] = find_xplanes(tracing.capture(tiny_runners, 1, out))
    time.sleep(1.1)  # a different second: a different profile/<stamp> directory
    [second] = find_xplanes(tracing.capture(tiny_runners, 1, out))
    assert second != first and not first.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["trace"]  # no temporary directory left beside it
    with pytest.raises(FileNotFoundError):
        find_xplanes(tmp_path)


@pytest.mark.slow
def test_captures_are_taken_one_after_another_each_parsed_on_its_own(tiny_runners, tmp_path):
    """`captures`: one trace per capture, in capture order, each holding every variant's steps (a claim takes
    the spread between them)."""
    xplanes = find_xplanes(tracing.capture(tiny_runners, 1, tmp_path / "t", captures=3))
    assert [p.relative_to(tmp_path / "t").parts[0] for p in xplanes] == ["capture0", "capture1", "capture2"]
    for xplane in xplanes:
        rows = traces.parse(xplane, COMPONENTS)
        assert {r["variant"] for r in rows} == set(tiny_runners) and {r["traced_steps"] for r in rows} == {1}


@pytest.mark.slow
def test_a_trace_is_parsed_without_starting_jax(breakdown):
    """A parse job reads a file: JAX's import would cost it more than the parse."""
    import subprocess
    import sys

    _, xplane = breakdown
    check = ("import sys; from jaxpitfalls import traces; from jaxpitfalls.studies.dispatch.spec import SPEC; "
             f"assert traces.parse({str(xplane)!r}, SPEC.trace_components); assert 'jax' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.slow
def test_a_traced_step_counts_the_jitted_calls_it_dispatched(tmp_path):
    """A Python loop of three jitted steps against one jitted function: 3 jitted calls a step against 1, read off
    jaxlib's dispatch events (what the report's "runs per call" table shows beside the signature)."""
    import jax
    import jax.numpy as jnp

    from jaxpitfalls.harness.protocol import Runner

    def called_back(v):  # a callback: each call goes through JAX's Python path, which parses its arguments again
        jax.debug.callback(lambda _: None, v)
        return jnp.tanh(v)

    x, one = jnp.ones(8), jax.jit(lambda v: jnp.tanh(v))
    three_in_one, with_callback = jax.jit(lambda v: jnp.tanh(jnp.tanh(jnp.tanh(v)))), jax.jit(called_back)
    runners = {"loop": Runner("loop", lambda: one(one(one(x))), dict),
               "fused": Runner("fused", lambda: three_in_one(x), dict),
               "callback": Runner("callback", lambda: with_callback(x), dict)}
    for r in runners.values():
        jax.block_until_ready(r.step())
    [xplane] = find_xplanes(tracing.capture(runners, 2, tmp_path / "trace"))
    calls = {r["variant"]: r["jit_calls"] for r in traces.parse(xplane, COMPONENTS)}
    assert calls == {"loop": 3, "fused": 1, "callback": 1}


def test_the_devices_collectives_inside_a_traced_step_are_summed_apart_from_the_step_thread(monkeypatch):
    """A walk's data-parallel step over two CPU devices: its all-reduce ran on the devices' threads, outside the
    traced thread the breakdown reads, and no page showed it."""
    from types import SimpleNamespace as Ns

    def event(name, start, end, **stats):
        return Ns(name=name, start_ns=start, duration_ns=end - start, stats=stats)

    class Line:
        """A trace line as jaxlib gives it: its events an iterator, true even where it holds none."""

        def __init__(self, name, events):
            self.name, self.kept = name, events

        @property
        def events(self):
            return iter(self.kept)

    python = Line("python", [event(traces.STEP_EVENT, 0, 1000, variant="sharded"), event("$mine.py:3 step", 10, 990)])
    devices = [Line(f"XLAEigen/{i}", [event("all-reduce", 200, 500), event("end: all-reduce", 500, 700),
                                     event("AllReduce rendezvous", 300, 400),  # nested: counted once
                                     event("fusion.2", 500, 900), event("all-reduce.7", 900, 1200)])
               for i in range(2)]
    trace = Ns(planes=[Ns(name="/host:CPU", lines=[python, *devices])])
    monkeypatch.setattr(traces, "_profile_data", lambda: Ns(from_file=lambda path: trace))
    (row, *_) = traces.parse("trace.xplane.pb", COMPONENTS)
    assert row["collectives_ms"] == pytest.approx(2 * (300 + 100) / 1e6)  # both devices, clipped to the step
    # a GPU's trace: the device planes' kernels, not the host's thunks beside them (counted once, not twice)
    gpu = Ns(name="/device:GPU:0", lines=[Line("stream 7", [event("ncclDevKernel_AllReduce", 100, 350)])])
    trace.planes.append(gpu)
    (row, *_) = traces.parse("trace.xplane.pb", COMPONENTS)
    assert row["collectives_ms"] == pytest.approx(250 / 1e6)
    gpu.lines[0].kept.clear()  # an idle GPU plane beside a CPU's devices: the CPU's threads still read
    (row, *_) = traces.parse("trace.xplane.pb", COMPONENTS)
    assert row["collectives_ms"] == pytest.approx(2 * (300 + 100) / 1e6)
    trace.planes[:] = [Ns(name="/host:CPU", lines=[python, Line("idle", [])])]  # only the step's thread
    (row, *_) = traces.parse("trace.xplane.pb", COMPONENTS)
    assert row["collectives_ms"] is None  # unknown, not none found

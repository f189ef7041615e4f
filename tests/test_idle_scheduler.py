"""Snakemake's scheduler stays idle while a job is timed (idle_scheduler.keep_idle, the Snakefile's `onstart`):
with jobs waiting on the `timing` resource, Snakemake 9's default job rate limiter re-ran its job selection many
times a second beside the running job (about 11% of a core, docs/decisions.md#an-idle-scheduler). Checked on a
small workflow of the same shape (40 quick jobs, then three slow ones that take the `timing` resource in turn), by
the CPU time Snakemake's own process spends while one slow job runs and two wait: 0.37 s in 3 s without
keep_idle, none with it. CPU time, not wall time, so a busy machine does not change what it reads."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from jaxpitfalls.harness import machine
from jaxpitfalls.idle_scheduler import keep_idle

SRC = Path(__file__).resolve().parents[1] / "src"
SNAKEFILE = f"""import sys
sys.path.insert(0, {str(SRC)!r})
from jaxpitfalls.idle_scheduler import keep_idle

onstart:
    keep_idle(workflow)

rule all:
    input: expand("slow/{{j}}", j=range(3))

rule quick:
    output: "quick/{{i}}"
    resources: timing=1
    shell: "touch {{output}}"

rule slow:
    input: expand("quick/{{i}}", i=range(40))
    output: "slow/{{j}}"
    resources: timing=1
    shell: "touch slow/started; sleep 5; touch {{output}}"
"""


def test_the_rate_limiter_is_dropped_only_where_jobs_run_on_this_machine():
    local = SimpleNamespace(local_exec=True, scheduler=SimpleNamespace(job_rate_limiter=object()))
    assert keep_idle(local) and local.scheduler.job_rate_limiter is None
    cluster = SimpleNamespace(local_exec=False, scheduler=SimpleNamespace(job_rate_limiter=object()))
    assert not keep_idle(cluster) and cluster.scheduler.job_rate_limiter is not None
    assert not keep_idle(SimpleNamespace(local_exec=True))  # another Snakemake's internals: left alone


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
def test_snakemake_spends_no_cpu_while_a_timed_job_runs_and_others_wait(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    run = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "2", "--resources", "timing=1",
                            "--quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "slow" / "started").exists():
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.stderr else ""
            time.sleep(0.1)
        before = machine.cpu_seconds(run.pid)
        time.sleep(3)
        spent = machine.cpu_seconds(run.pid) - before
    finally:
        run.kill()
        run.wait()
    assert spent <= 0.15, f"{spent:.2f} CPU s in 3 s"  # at most 5% of a core; about 11% with the limiter's timers

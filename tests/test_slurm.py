"""The smoke preset's measuring jobs on a real single-node Slurm cluster with accounting
(scripts/slurm_cluster.sh), through profiles/slurm and snakemake-executor-plugin-slurm: a measuring job
cancelled mid-run (`scancel`) is reported and a rerun completes only it; every measuring job ran as a Slurm
job (its id in the result), alone on the node; the outputs are the local run's.

It starts from a copy of the shared smoke run and reruns two studies' measuring jobs there (dispatch's, in
two worker processes, and tree_at's, on two XLA devices; their traces are the local run's): the plugin polls
with a growing interval, so each job on the cluster costs seconds more than it runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest
from configs import smoke_result
from system_tiers import need
from workflow_copy import ROOT, command, environment, snakemake

from jaxpitfalls import results

pytestmark = pytest.mark.workflow
need("Slurm", ("slurmctld", "slurmd", "slurmdbd", "munged", "mariadbd"),
     "`make slurm-packages` as root on Debian (slurmctld slurmd slurm-client slurmdbd munge mariadb-server)", root=True)

SUDO = [] if os.geteuid() == 0 else ["sudo", "-n"]
TIMING_RULES = ("run_study", "capture_trace")


def _cluster(action: str, directory: Path) -> None:
    proc = subprocess.run([*SUDO, str(ROOT / "scripts" / "slurm_cluster.sh"), action, str(directory)],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"slurm_cluster.sh {action} failed:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    directory = tmp_path_factory.mktemp("slurm") / "cluster"
    try:
        _cluster("up", directory)
        yield dict(os.environ, SLURM_CONF=str(directory / "slurm.conf"))
    finally:
        _cluster("down", directory)


def _on_slurm(work: Path, env: dict[str, str], *args: str) -> subprocess.Popen:
    """The smoke preset through profiles/slurm, started (its output read by _finish)."""
    cmd = command("--workflow-profile", "profiles/slurm", "--slurm-init-seconds-before-status-checks", "1",
                  "--seconds-between-status-checks", "2", *args)  # a finished job seen in 2 s, not 10
    return subprocess.Popen(cmd, cwd=work, env=environment(work, env), text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def _finish(proc: subprocess.Popen, timeout_s: float = 600) -> str:
    """The run's output once it ends; killed (and the test failed) if it does not end in time."""
    try:
        return proc.communicate(timeout=timeout_s)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"snakemake did not end within {timeout_s} s:\n{proc.communicate()[0][-3000:]}") from None


def _slurm(env: dict[str, str], *cmd: str) -> str:
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=30).stdout


def _running_timing_job(env: dict[str, str], proc: subprocess.Popen, timeout_s: float = 120) -> str:
    """The id of the first measuring job seen running (squeue: id, comment = rule and wildcards, state)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        for line in _slurm(env, "squeue", "-h", "-o", "%i|%k|%T").splitlines():
            job, comment, state = line.split("|")
            if comment.startswith("rule_run_study") and state == "RUNNING":
                return job
        time.sleep(0.5)
    raise AssertionError("no run_study job was seen running")


def _accounted(env: dict[str, str]) -> list[dict[str, str]]:
    out = _slurm(env, "sacct", "-X", "-n", "-P", "-a", "-S", "now-1days",
                 "-o", "JobID,Comment,State,Start,End,NodeList")
    keys = ("job", "comment", "state", "start", "end", "node")
    return [dict(zip(keys, line.split("|"), strict=True)) for line in out.splitlines()]


def test_measuring_jobs_on_slurm_survive_a_cancelled_job_and_are_timed_each_alone(cluster, smoke_run, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(smoke_run, work, symlinks=True)
    copied = snakemake(work, "-n")
    assert "Nothing to be done" in copied.stdout + copied.stderr
    forced = [smoke_result("dispatch"), smoke_result("tree_at")]
    assert all((work / path).is_file() for path in forced)
    beyond = _on_slurm(work, cluster, "--cores", "99", "--forcerun", *forced)  # the test node has 2 CPUs
    out = _finish(beyond, timeout_s=120)
    assert beyond.returncode != 0 and "--cores 99: no node of this cluster has 99 CPUs (the largest has" in out, out
    assert not _slurm(cluster, "squeue", "-h"), "a job was submitted"
    first = _on_slurm(work, cluster, "--forcerun", *forced)
    cancelled = _running_timing_job(cluster, first)
    _slurm(cluster, "scancel", cancelled)
    out = _finish(first)
    assert first.returncode != 0, out[-3000:]
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in out, out[-3000:]

    rerun = _on_slurm(work, cluster)
    out = _finish(rerun)
    assert rerun.returncode == 0, out[-3000:]
    assert out.count("rule run_study:") == 1  # the cancelled configuration again, none of the finished ones
    local = snakemake(work, "-n")  # the default (local) profile
    assert "Nothing to be done" in local.stdout + local.stderr  # the cluster made the local run's files

    jobs = {j["job"]: j for j in _accounted(cluster)}
    assert jobs[cancelled]["state"].startswith("CANCELLED")
    for path in forced:
        where = results.read_result(work / path)["environment"]["placement"]  # validated against the schema
        assert where["scheduler"] == "slurm" and where["slurm_cpus"] >= 1, (path, where)
        assert where["slurm_shared"] is False, (path, where)  # the profile's --exclusive, as Slurm saw it
        job = jobs[where["slurm_job_id"]]
        assert job["state"] == "COMPLETED" and job["comment"].startswith("rule_run_study") and \
            job["node"] == where["slurm_node"]
    timed = sorted((datetime.fromisoformat(j["start"]), datetime.fromisoformat(j["end"]), j["job"])
                   for j in jobs.values() if j["comment"].startswith(tuple(f"rule_{r}" for r in TIMING_RULES))
                   and j["state"] == "COMPLETED")
    assert len(timed) == len(forced)
    for (_, end, a), (start, _, b) in zip(timed, timed[1:], strict=False):
        assert end <= start, f"timing jobs {a} and {b} overlapped on the node"

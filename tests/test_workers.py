"""The one protocol between a job and its worker processes (harness/workers.py), on tiny real workers: the first
JSON line is the reply whatever else the worker prints, an error reply fails the job naming the worker and its
error, a worker that exits without answering fails it naming its exit code, and a worker outlives no job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from jaxpitfalls.harness.workers import LIFELINE, PipeWorker, WorkerFailed, exit_with_job
from jaxpitfalls.runtime import checkout_env

ANSWERS = ("from jaxpitfalls.harness.workers import answer_first, reply_channel\n"
           "replies = reply_channel()\n"
           "print('a library printing on standard output')\n")


def _worker(code: str) -> PipeWorker:
    return PipeWorker("worker 1 of 1", sys.executable, {}, ["-c", code])


def test_the_first_line_is_the_reply_whatever_else_the_worker_prints():
    worker = _worker(ANSWERS + "answer_first(replies, lambda: {'result': 42}, 'measuring')\n")
    try:
        assert worker.first == {"result": 42}
    finally:
        worker.close()
    assert worker.proc.returncode == 0


def test_a_worker_that_leaves_after_answering_exits_0_its_log_written_its_clean_up_skipped(tmp_path, monkeypatch):
    log_path, cleaned = tmp_path / "worker.log", tmp_path / "cleaned"
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # buffered, Python's standard output and C's, as a job's
    # as a job starts it: standard error already the job's log, so what the worker prints lands there too
    worker = _worker(f"import os\nos.dup2(os.open({str(log_path)!r}, os.O_WRONLY | os.O_APPEND | os.O_CREAT), 2)\n"
                     + ANSWERS + "import atexit, ctypes, logging\nfrom jaxpitfalls import runtime\n"
                     "from jaxpitfalls.harness.workers import leave\n"
                     f"runtime.start({str(log_path)!r}, append=True)\n"
                     "ctypes.CDLL(None).printf(b'native code printing\\n')\n"
                     f"atexit.register(open, {str(cleaned)!r}, 'w')\n"
                     "answer_first(replies, lambda: {'result': 42}, 'measuring')\n"
                     "logging.getLogger('jaxpitfalls').info('answered: leaving')\nleave()\n")
    try:
        assert worker.first == {"result": 42}
    finally:
        assert worker.close() == 0
    logged = log_path.read_text()
    assert "answered: leaving" in logged
    assert "a library printing on standard output" in logged and "native code printing" in logged
    assert not cleaned.exists()  # the interpreter's clean-up did not run


def test_a_failing_worker_is_named_with_its_error_or_its_exit_code():
    failing = _worker(ANSWERS + "def fail():\n    raise ValueError('no such model')\n"
                      "answer_first(replies, fail, 'measuring')\n")
    with pytest.raises(WorkerFailed, match=r"^worker 1 of 1: ValueError: no such model$"):
        _ = failing.first
    failing.close()
    silent = _worker("import sys; sys.exit(3)")
    with pytest.raises(WorkerFailed, match=r"worker 1 of 1: its worker exited \(code 3\) before answering"):
        _ = silent.first
    cut = _worker("import os, sys; os.write(1, b'{\"result\": '); sys.exit(4)")  # dies while answering
    with pytest.raises(WorkerFailed, match=r"exited \(code 4\) before answering"):
        _ = cut.first
    garbled = _worker("print('not the protocol', flush=True)")
    with pytest.raises(WorkerFailed, match="an unreadable reply"):
        _ = garbled.first
    assert garbled.close() == 0


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie, exited but not yet reaped by whoever adopted it, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_a_worker_exits_when_its_job_is_killed():
    job = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom jaxpitfalls.harness.workers import PipeWorker\n"
        "worker = PipeWorker('worker 1 of 1', sys.executable, {}, ['-c', " + repr(
            ANSWERS + "import os, time\nanswer_first(replies, lambda: {'pid': os.getpid()}, 'pid')\ntime.sleep(120)\n")
        + "])\nprint(worker.first['pid'], flush=True)\ntime.sleep(120)\n")],
        stdout=subprocess.PIPE, text=True, env=checkout_env())
    pid = int(job.stdout.readline())
    job.kill()  # as uncatchable as it gets: no finally, no close()
    job.wait()
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    orphaned = _alive(pid)
    if orphaned:
        os.kill(pid, signal.SIGKILL)
    assert not orphaned


@pytest.mark.parametrize("handed", ["standard output", "closed", "a file", "not a number"])
def test_a_lifeline_that_is_not_a_pipe_is_ignored(handed, tmp_path, monkeypatch):
    """A worker's child that inherits the variable but not the pipe (pyperf's workers) must not stop at once."""
    file = os.open(tmp_path / "f", os.O_CREAT | os.O_RDWR)
    closed = os.dup(file)
    os.close(closed)
    fd = {"standard output": "1", "closed": str(closed), "a file": str(file), "not a number": "x"}[handed]
    monkeypatch.setenv(LIFELINE, fd)
    exit_with_job()
    os.close(file)
    assert LIFELINE not in os.environ
    assert "lifeline" not in [t.name for t in threading.enumerate()]


def test_jobs_import_the_parsing_checkout_before_a_shared_venv_s_editable_install(tmp_path, monkeypatch):
    """A second clone sharing the first's venv: Snakemake parses this checkout's code, and its jobs (processes it
    starts) must import the same, not the one the venv's editable install points to."""
    from jaxpitfalls import runtime

    other = tmp_path / "jaxpitfalls"
    other.mkdir()
    (other / "__init__.py").write_text("")
    monkeypatch.setattr(runtime, "SRC", tmp_path)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    runtime.jobs_import_this_checkout()
    assert os.environ["PYTHONPATH"] == os.pathsep.join([str(tmp_path), "/elsewhere"])
    found = subprocess.run([sys.executable, "-c", "import jaxpitfalls; print(jaxpitfalls.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found).parent == other


def test_a_workers_warnings_reach_its_jobs_console_and_everything_its_log(tmp_path):
    """A worker's standard error is the job's log; what it warns of (waiting for a quiet machine) also shows on the
    console the run is watched from, its progress lines not."""
    log, worker, job = tmp_path / "job.log", tmp_path / "worker.py", tmp_path / "job.py"
    worker.write_text(ANSWERS + "import sys\nfrom jaxpitfalls import runtime\n"
                      "log = runtime.start(sys.argv[1], append=True)\n"
                      "log.info('round 1/3')\nlog.warning('waiting for 5 s of quiet')\n"
                      "import logging\n"
                      "logging.getLogger('jax._src.xla_bridge').info(\"Unable to initialize backend 'tpu'\")\n"
                      "answer_first(replies, lambda: {'ok': 1}, 'measuring')\n")
    job.write_text("import sys\nfrom jaxpitfalls import runtime\nfrom jaxpitfalls.harness.workers import PipeWorker\n"
                   "runtime.start(sys.argv[1]).info('the job starts')\n"
                   "worker = PipeWorker('w', sys.executable, {}, [sys.argv[2], sys.argv[1]])\n"
                   "assert worker.first == {'ok': 1}\nworker.close()\n")
    proc = subprocess.run([sys.executable, str(job), str(log), str(worker)], capture_output=True, text=True,
                          timeout=60, env=checkout_env())
    assert proc.returncode == 0, proc.stderr
    assert "the job starts" in proc.stderr and "waiting for 5 s of quiet" in proc.stderr
    assert "round 1/3" not in proc.stderr
    assert all(line in log.read_text() for line in ("the job starts", "round 1/3", "waiting for 5 s of quiet"))
    assert "initialize backend" not in log.read_text()  # JAX's INFO on each absent platform: in no job's log

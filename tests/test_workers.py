"""The one protocol between a job and its worker processes (harness/workers.py), on tiny real workers: the first
JSON line is the reply whatever else the worker prints, an error reply fails the job naming the worker and its
error, and a worker that exits without answering fails it naming its exit code."""

from __future__ import annotations

import sys

import pytest

from jaxpitfalls.harness.workers import PipeWorker, WorkerFailed

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

"""The protocol between a job and its worker processes: the worker is
`python -m <module> REQUEST.json LOG_PATH JAX_CACHE_DIR` and answers JSON lines on standard output (its result, or
ready and then one reply per request line, or `{"error": ...}`). Anything else printed goes to standard error, the
job's log, so no library's print breaks the protocol.
"""

from __future__ import annotations

import ctypes
import functools
import json
import logging
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn, TextIO

from ..runtime import checkout_env, console_fds

log = logging.getLogger(__name__)
LIFELINE = "JAXPITFALLS_LIFELINE_FD"  # the pipe a worker reads to learn that its job has exited


class WorkerFailed(RuntimeError):
    """A worker exited or answered with an error (its log has the traceback)."""

    traceback_logged = True  # the job's own traceback is plumbing (runtime.start logs its message alone)


@functools.cache
def _lifeline() -> int:
    """The read end of a pipe whose write end only this job holds, closed when it exits, however killed."""
    read, _write = os.pipe()
    return read


def tied_to_job(env: dict[str, str]) -> tuple[dict[str, str], tuple[int, ...]]:
    """A worker's environment and the descriptors to pass it (`pass_fds`) so that it exits with this job."""
    lifeline = _lifeline()
    return env | {LIFELINE: str(lifeline)}, (lifeline,)


def _is_pipe(fd: int) -> bool:
    """Whether `fd` is a lifeline handed on, not a standard stream or a number since closed or reused."""
    try:
        return fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def exit_with_job() -> None:
    """A worker exits with its job: else a killed run leaves it running, load on the next."""
    fd = os.environ.pop(LIFELINE, None)
    if fd is None or not fd.isdigit() or not _is_pipe(int(fd)):
        return

    def watch() -> None:
        os.read(int(fd), 1)  # blocks, no CPU; end of file once the job's end is closed
        log.error("worker: its job exited; stopping")
        os._exit(1)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


def reply_channel() -> TextIO:
    """The worker's side: standard output kept for replies, all else to stderr; the worker exits with its job."""
    exit_with_job()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    return replies


def send(replies: TextIO, reply: dict[str, Any]) -> None:
    replies.write(json.dumps(reply) + "\n")
    replies.flush()


def answer(replies: TextIO, compute: Callable[[], dict[str, Any]], what: str) -> bool:
    """`compute`'s result as a reply, or its error (logged with its traceback); whether it answered."""
    try:
        reply = compute()
    except Exception as error:
        log.exception("%s failed", what)
        send(replies, {"error": f"{type(error).__name__}: {error}"})
        return False
    send(replies, reply)
    return True


def answer_first(replies: TextIO, compute: Callable[[], dict[str, Any]], what: str) -> None:
    """The worker's first reply: `compute`'s result or its error, then exit."""
    if not answer(replies, compute, what):
        raise SystemExit(1)


def leave() -> NoReturn:
    """End an answered worker, output flushed, without the clean-up (JAX's clears every cache) its job waits on."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):  # a library's prints, which reply_channel sent to the log
        stream.flush()
    ctypes.CDLL(None).fflush(None)  # and native code's, still in C's buffers
    os._exit(0)


class PipeWorker:
    """The job's side: a worker started at once, its first reply awaited when read."""

    def __init__(self, name: str, python: str, env: dict[str, str], args: list[str]) -> None:
        self.name = name
        env, fds = tied_to_job(checkout_env(env))
        self.proc = subprocess.Popen([python, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env, pass_fds=(*fds, *console_fds()))

    @functools.cached_property
    def first(self) -> dict[str, Any]:
        """Its first reply: its result, or what it said once ready."""
        return self.reply()

    def reply(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()
        if not line.endswith("\n"):  # nothing, or a reply cut off: the worker exited while answering
            raise WorkerFailed(f"{self.name}: its worker exited (code {self.proc.wait()}) before answering; its "
                               "error is in the log")
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            reply = None
        if not isinstance(reply, dict):
            raise WorkerFailed(f"{self.name}: an unreadable reply (something else wrote to the protocol's "
                               f"stream): {line[:200]!r}")
        if "error" in reply:
            raise WorkerFailed(f"{self.name}: {reply['error']}")
        return reply

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            send(self.proc.stdin, request)
        except BrokenPipeError:
            pass  # the worker is gone: reply() says how it exited
        return self.reply()

    def close(self) -> int:
        """End the worker (input closed; killed after a minute); its exit code."""
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except BrokenPipeError:
                pass
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

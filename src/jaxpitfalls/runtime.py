"""Set-up shared by the rule scripts: logging into the rule's `log:` file, XLA flags, JAX's compilation cache,
and the environment of a worker process that runs this checkout's code."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

# The package's parent: a child Python process that must import this checkout's code, whatever its interpreter
# (a lockstep side's venv, a release's), gets it first on its PYTHONPATH.
SRC = Path(__file__).resolve().parents[1]


def checkout_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment (with `extra` over it) for a child that imports this checkout's code."""
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return os.environ | dict(extra or {}) | {"PYTHONPATH": path}


def jobs_import_this_checkout() -> None:
    """This checkout's package first on PYTHONPATH, for every process started from here on (Snakemake's jobs
    inherit its environment)."""
    os.environ["PYTHONPATH"] = checkout_env()["PYTHONPATH"]


def set_xla_flags(flags: str) -> None:
    """Add the config's XLA flags missing from XLA_FLAGS (a flag set twice is recorded once). XLA
    reads them once, when JAX starts, so this must come first."""
    present = os.environ.get("XLA_FLAGS", "").split()
    missing = [flag for flag in flags.split() if flag not in present]
    if not missing:
        return
    if "jax" in sys.modules:
        raise RuntimeError(f"XLA flags {flags!r} must be set before JAX is imported, and it already was")
    os.environ["XLA_FLAGS"] = " ".join([*present, *missing])


def stderr_into(log_path: str) -> TextIO | None:
    """Point standard error (fd 2) at the log, appending, so native code's last words reach it. Returns the
    console it replaced, where log lines keep showing; None where standard error is the log already (a worker)."""
    log_fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if os.path.sameopenfile(log_fd, 2):
            return None
        console = os.fdopen(os.dup(2), "w", buffering=1)
        sys.stderr.flush()
        os.dup2(log_fd, 2)
        return console
    finally:
        os.close(log_fd)


# The job's console (its standard error before it was pointed at the log) as `fd:device:inode`: its workers warn
# there too, so a wait for a quiet machine shows where the run is watched, not only in the log.
CONSOLE_FD = "JAXPITFALLS_CONSOLE_FD"


def _console_of(fd: int) -> str:
    found = os.fstat(fd)
    return f"{fd}:{found.st_dev}:{found.st_ino}"


def console_fds() -> tuple[int, ...]:
    """The job's console descriptor, to hand its workers (`pass_fds`); none outside a job."""
    fd = os.environ.get(CONSOLE_FD, "").partition(":")[0]
    return (int(fd),) if fd.isdigit() else ()


def _job_console() -> logging.Handler | None:
    """A worker's handler of warnings on its job's console: the file the job named, never a number reused."""
    for fd in console_fds():
        try:
            if _console_of(fd) == os.environ[CONSOLE_FD] and not os.path.sameopenfile(fd, 2):
                handler = logging.StreamHandler(os.fdopen(fd, "w", buffering=1, closefd=False))
                handler.setLevel(logging.WARNING)
                return handler
        except OSError:  # closed: not handed on
            pass
    return None


def start(log_path: str | None, jax_cache_dir: str | None = None, xla_flags: str = "",
          append: bool = False) -> logging.Logger:
    """Log to the rule's log file (native code's standard error too) and the console; set XLA flags and the
    compilation cache. `append`: a job's worker adds to the job's log."""
    set_xla_flags(xla_flags)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        if not append:
            open(log_path, "w").close()
        # always appending (O_APPEND): the job's and its workers' lines land at the end, none overwrites another
        console = stderr_into(log_path)
        if console is not None:
            handlers.append(logging.StreamHandler(console))
            os.environ[CONSOLE_FD] = _console_of(console.fileno())
        elif append and (job_console := _job_console()) is not None:
            handlers.append(job_console)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", handlers=handlers,
        force=True,
    )
    # JAX's INFO for each platform it finds absent ("Unable to initialize backend 'tpu'") opened every job's log
    logging.getLogger("jax._src.xla_bridge").setLevel(logging.WARNING)
    log = logging.getLogger("jaxpitfalls")

    def log_uncaught(kind, value, tb):
        said = None if getattr(value, "traceback_logged", False) else (kind, value, tb)  # one traceback a failure
        log.critical("failed: %s: %s", kind.__name__, value, exc_info=said)

    sys.excepthook = log_uncaught  # the traceback lands in the rule's log file, not only on stderr
    if jax_cache_dir:
        import jax

        jax.config.update("jax_compilation_cache_dir", jax_cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return log

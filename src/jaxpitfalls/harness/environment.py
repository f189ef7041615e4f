"""The provenance every result carries: versions, hardware, flags, code revision."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import subprocess
from pathlib import Path

from .. import sources
from ..results import installed_version

PACKAGES = ("jax", "jaxlib", "equinox", "optax", "transformers", "torch", "numpy", "snakemake",
            "ml_dtypes", "opt_einsum", "scipy")  # JAX's own dependencies too: ml_dtypes moves a process's start


def cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo, or what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_state(repo: str | os.PathLike = ".", *files: str | os.PathLike) -> dict[str, object]:
    """Commit and dirty flag of the checkout the code runs from (None outside git), or of `files` in it: one git
    does not track is in no commit (dirty, no commit)."""
    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is not None and files and git("ls-files", "--error-unmatch", *map(str, files)) is None:
        return {"commit": None, "dirty": True}
    status = git("status", "--porcelain", "--untracked-files=no", "--", *map(str, files))  # none: the checkout's
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def config_hash(config: dict) -> str:
    """A stable short hash of a configuration (key order does not matter)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def _shared(job_id: str) -> bool | None:
    """Whether Slurm lets other jobs onto this job's node (not --exclusive); None where scontrol cannot say."""
    try:
        shown = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = next((w.split("=", 1)[1] for w in shown.stdout.split() if w.startswith("OverSubscribe=")), None)
    return None if found is None else found != "NO"


def placement() -> dict[str, object]:
    """Where the job ran: host and, under Slurm, job id, node, allocated CPUs and GPUs, a node shared or not."""
    env = os.environ
    slurm = "SLURM_JOB_ID" in env
    return {
        "host": platform.node(),
        "scheduler": "slurm" if slurm else "local",
        "slurm_job_id": env.get("SLURM_JOB_ID"),
        "slurm_node": env.get("SLURMD_NODENAME") if slurm else None,
        "slurm_cpus": int(env["SLURM_CPUS_ON_NODE"]) if slurm and "SLURM_CPUS_ON_NODE" in env else None,
        "slurm_gpus": (env.get("SLURM_GPUS_ON_NODE") or env.get("SLURM_JOB_GPUS")) if slurm else None,
        "slurm_shared": _shared(env["SLURM_JOB_ID"]) if slurm else None,
    }


REPO = Path(__file__).resolve().parents[3]  # the checkout whose code is timed


def of_request(request: dict) -> dict[str, object]:
    """The environment a job's request is measured in, with the hash of what fixes its result."""
    hashed = {"config": request["conf"], "settings": request["settings"], "model": request["model_spec"]}
    own = study_code(request["study"]) if "study" in request else None
    return describe(hashed, REPO, request.get("record", ())) | ({"study_code": own} if own else {})


def study_code(study: str) -> dict[str, object] | None:
    """A user's study: its folder and files' digest in place of a commit; a benchmark file: path,
    digest and commit. None for a packaged study."""
    own = sources.benchmark_files().get(study)
    if own is not None:
        files = [own, *sorted(sources.neighbours(own))]  # and the modules beside it that it imports
        checked_out = sources.benchmark_commits().get(study)  # a revision side's checkout has no git of its own
        git = {"commit": checked_out, "dirty": False} if checked_out else git_state(own.parent, *files)
        digest = hashlib.sha256()
        for path in files:
            digest.update(path.relative_to(own.parent).as_posix().encode() + b"\0" + path.read_bytes())
        return {"file": str(own), "sha256": digest.hexdigest(), "git": git}
    for folder in sources.study_folders():
        where = folder.resolve() / study
        if (where / "spec.py").is_file():
            digest = hashlib.sha256()
            for path in sorted(p for p in where.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
                digest.update(path.relative_to(where).as_posix().encode() + b"\0" + path.read_bytes())
            return {"folder": str(where), "sha256": digest.hexdigest()}
    return None


# How XLA's client allocates device memory: on a GPU it preallocates 75% of it unless told otherwise, which a run
# beside another process (or a second worker) on one device depends on.
ALLOCATOR = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR")


def device_memory(device) -> dict[str, object]:
    """The device's memory limit and use (None on a CPU) and the allocator's settings (None: unset)."""
    stats = device.memory_stats() or {}
    return {"device_memory_bytes": stats.get("bytes_limit"), "device_memory_in_use_bytes": stats.get("bytes_in_use"),
            "allocator": {name: os.environ.get(name) for name in ALLOCATOR}}


def describe(config: dict, repo: str | os.PathLike = ".", record: tuple[str, ...] | list[str] = ()
             ) -> dict[str, object]:
    """All that tells whether two results are comparable; `record`: more packages to record."""
    import jax

    devices = jax.devices()
    return device_memory(devices[0]) | {
        "python": platform.python_version(),
        "packages": {p: installed_version(p) for p in dict.fromkeys([*PACKAGES, *record])},
        "backend": jax.default_backend(),
        "device_kind": devices[0].device_kind,
        "device_count": len(devices),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "git": git_state(repo),
        "placement": placement(),
        "config_hash": config_hash(config),
        "timestamp": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }

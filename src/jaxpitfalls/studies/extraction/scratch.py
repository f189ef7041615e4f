"""Where extraction's passes store: in memory where there is room, as the write-up's store is (a disk's writeback
set fresh processes apart: docs/decisions.md#extraction-stores-into-memory)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

MEMORY = Path("/dev/shm")  # Linux's filesystem in memory
ROOM = 2  # twice the passes kept at once: each file's header and last page
_OWNED = re.compile(r"extraction-(?:trace-)?(\d+)-")


def _available() -> int:
    """MemAvailable in bytes (0: not said)."""
    try:
        found = re.search(r"^MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    except OSError:
        return 0
    return int(found.group(1)) * 1024 if found else 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        pass
    return True


def _remove_orphans() -> None:
    """Directories killed workers left in memory, by their dead owner's pid."""
    for path in MEMORY.glob("extraction-*"):
        owner = _OWNED.match(path.name)
        if owner and not _alive(int(owner.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def make_scratch(prefix: str, kept_bytes: int) -> tuple[Path, str]:
    """A fresh directory for passes keeping `kept_bytes`: "memory" where it has ROOM, else "temp dir"."""
    prefix = f"{prefix}{os.getpid()}-"
    if MEMORY.is_dir() and os.access(MEMORY, os.W_OK):
        _remove_orphans()
        if min(shutil.disk_usage(MEMORY).free, _available()) >= ROOM * kept_bytes:
            return Path(tempfile.mkdtemp(prefix=prefix, dir=MEMORY)), "memory"
    return Path(tempfile.mkdtemp(prefix=prefix)), "temp dir"

"""Peak memory: the device allocator's peak where kept (GPU, TPU) and the process's VmHWM, reset per mode."""

from __future__ import annotations

from pathlib import Path

import jax


def reset_host_peak() -> bool:
    """Reset the kernel's resident-set high-water mark (Linux: write 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def host_peak_bytes() -> int | None:
    """VmHWM of this process, in bytes (None where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def device_peak_bytes() -> int | None:
    """The first device's allocator peak; None on CPU, whose devices keep no stats."""
    stats = jax.devices()[0].memory_stats()
    return None if stats is None else stats.get("peak_bytes_in_use")


def peak_memory() -> dict[str, int | None]:
    return {"device_peak_bytes": device_peak_bytes(), "host_peak_bytes": host_peak_bytes()}

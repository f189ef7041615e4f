"""What the `generation` study is, as the rest of the workflow reads it: its variants, the floor they are
compared with, its modes (with what each measures), the mode its trace is taken in and the components the
trace breaks a step into. JAX-free: the report's jobs and the trace parser read it without importing the
measuring code (measure.py)."""

from __future__ import annotations

from ...breakdown import Component

# The decoders (measure.py checks its DECODERS are these, in this order).
VARIANTS = ("uncached", "uncached_padded", "kv_cache", "kv_cache_scan")

# The floor every variant is compared with.
FLOOR = "kv_cache"

MODES = {"generate": "one whole greedy generation of `new_tokens` tokens after the prompt, tokens on the host"}

TRACED_MODE = "generate"

TRACE_COMPONENTS = (
    Component("python_loop", (("decoding.py", "generate"), ("decoding.py", "__call__")),
              description="the decoding loop in Python (between jitted calls)"),
    Component("executable", prefixes=("PjitFunction(",),
              description="C++ dispatch and the compiled program (PjitFunction)"),
    Component("to_host", (("array.py", "__int__"), ("array.py", "_value"), ("api.py", "device_get"),
                          ("array.py", "__array__")),
              description="waiting for a token and copying it to the host"),
)

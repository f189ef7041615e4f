"""What the `extraction` study is, as the rest of the workflow reads it: its variants, the floor they are
compared with, its modes (with what each measures), the mode its trace is taken in and the components the
trace breaks a step into. JAX-free: the report's jobs and the trace parser read it without importing the
measuring code (measure.py)."""

from __future__ import annotations

from ...breakdown import Component

# The extractors (measure.py checks its EXTRACTORS are these, in this order).
VARIANTS = ("eager", "jit", "jit_padded", "jit_padded_async", "pipelined")

# The floor every variant is compared with.
FLOOR = "pipelined"

# Each phase against the one before it (the write-up's cumulative gains); each is also compared with the floor.
PHASES = (("eager", "jit"), ("jit", "jit_padded"), ("jit_padded", "jit_padded_async"))

MODES = {"extract": "one whole pass over the dataset: every batch forward, copied to the host, stored"}

TRACED_MODE = "extract"

TRACE_COMPONENTS = (
    Component("store", (("extractors.py", "store"),), description="writing the real tokens' rows (np.save)"),
    Component("to_host", (("extractors.py", "to_host"),), description="device-to-host copies (and waiting)"),
    Component("executable", prefixes=("PjitFunction(",),
              description="C++ dispatch and the compiled program (PjitFunction)"),
    Component("dispatch", (("extractors.py", "dispatch"),), description="preparing and dispatching a batch"),
)

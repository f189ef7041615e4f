"""`jaxpitfalls`: one command for work on what a run left behind (publishing, rejudging, exporting), which is
no Snakemake target. Each command (COMMANDS) is a module's own `main`; this only routes, importing nothing else.
"""

from __future__ import annotations

import importlib
import sys

# command -> (module under jaxpitfalls, what it does); a command of two words routes its second word on as well
COMMANDS = {
    "reference snapshot": ("across_runs.reference.reference", "a dated snapshot of a reference run"),
    "reference publish": ("across_runs.reference.published", "make a snapshot the published one"),
    "reference withhold": ("across_runs.reference.published", "say in one line why a snapshot is not published"),
    "reference archive": ("across_runs.reference.published", "every snapshot but the published one out of the tree"),
    "reference rejudge": ("across_runs.reference.rejudge", "judge and render a snapshot again by today's rules"),
    "reference reestimate": ("across_runs.reference.reestimate", "a snapshot's intervals again by today's estimator"),
    "reference thin": ("across_runs.reference.thinned", "a run's samples cut short, judged again"),
    "readme": ("across_runs.reference.readme", "the README's numbers from the published snapshot"),
    "calibration publish": ("across_runs.calibration.published", "publish a make calibrate run's page and data"),
    "calibration publish-pyperf": ("across_runs.calibration.published", "publish a calibrate-pyperf run's pairs"),
    "calibration rejudge": ("across_runs.calibration.published", "render the published calibration page again"),
    "calibration intervals": ("across_runs.calibration.study_intervals", "the studies' intervals, simulated"),
    "history rejudge": ("across_runs.history.rejudge", "a release history's steps from its job table"),
    "claims": ("report.scorecard.claims_page", "the write-ups' claims page from the specs"),
    "export pyperf": ("report.tables.pyperf_suite", "a run's timing results as one pyperf suite"),
}
# Modules whose own main reads the word after the group as its subcommand (argparse subparsers of their own).
PASS_WORD = {"across_runs.reference.published", "across_runs.calibration.published"}


def usage() -> str:
    return "usage: jaxpitfalls COMMAND [ARGS...]\n\n" + "\n".join(
        f"  {command:<27} {what}" for command, (_, what) in COMMANDS.items())


def route(argv: list[str]) -> tuple[str, list[str]]:
    """The module a command line names and the arguments its main gets, or SystemExit with the usage."""
    for words in (2, 1):
        command = " ".join(argv[:words])
        if len(argv) >= words and command in COMMANDS:
            module = COMMANDS[command][0]
            rest = argv[words:]
            return module, ([argv[words - 1], *rest] if module in PASS_WORD else rest)
    raise SystemExit(usage() if not argv else f"jaxpitfalls: unknown command {' '.join(argv[:2])!r}\n\n{usage()}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    module, args = route(argv)
    try:
        return importlib.import_module(f"jaxpitfalls.{module}").main(args) or 0
    except (OSError, ValueError) as e:  # a path that is not there, a file that is not the table: said, not traced
        sys.exit(f"jaxpitfalls {' '.join(argv[:2])}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    sys.exit(main())

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


GROUPS = {command.split()[0] for command in COMMANDS if " " in command}


def usage(group: str = "") -> str:
    """Every command, or a group's (`export`, `reference`, ...)."""
    return "usage: jaxpitfalls COMMAND [ARGS...]\n\n" + "\n".join(
        f"  {command:<27} {what}" for command, (_, what) in COMMANDS.items() if command.startswith(group))


def route(argv: list[str]) -> tuple[str, list[str]]:
    """The module a command line names and the arguments its main gets, or SystemExit with the usage."""
    for words in (2, 1):
        command = " ".join(argv[:words])
        if len(argv) >= words and command in COMMANDS:
            module = COMMANDS[command][0]
            rest = argv[words:]
            return module, ([argv[words - 1], *rest] if module in PASS_WORD else rest)
    if argv and argv[0] in GROUPS:  # a group's word alone: its commands
        raise SystemExit(usage(argv[0]))
    raise SystemExit(usage() if not argv else f"jaxpitfalls: unknown command {' '.join(argv[:2])!r}\n\n{usage()}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    group = argv[0] if argv[:1] and argv[0] in GROUPS else ""  # `jaxpitfalls export --help`: that group's help
    if argv[bool(group):][:1] in (["-h"], ["--help"]):
        print(usage(group))
        return 0
    module, args = route(argv)
    command = " ".join(argv[:2]) if " ".join(argv[:2]) in COMMANDS else argv[0]
    try:
        return importlib.import_module(f"jaxpitfalls.{module}").main(args) or 0
    except OSError as e:  # a path that is not there: said, not traced
        sys.exit(f"jaxpitfalls {command}: {type(e).__name__}: {e}")
    except ValueError as e:  # a file that is not a table (pandas' parser); any other error keeps its traceback
        if not type(e).__module__.startswith("pandas"):
            raise
        sys.exit(f"jaxpitfalls {command}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    sys.exit(main())

"""The workflow's jobs, each beside the worker process it starts: `run_study` (study.py, its fresh workers
study_worker.py), a lockstep comparison's `lockstep` (lockstep.py, each side's warm worker lockstep_worker.py),
the calibration's `pyperf_pair` (pyperf_pair.py, pyperf_worker.py: pyperf's own protocol), and the release
history's `release_env` and `history_run` (release_env.py, history_run.py). Every worker of ours speaks one
protocol (harness/workers.py). The top floor: they run the studies through the contract's registry and the
harness."""

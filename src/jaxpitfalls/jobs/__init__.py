"""The workflow's jobs, each beside the worker it starts; our workers speak one protocol (harness/workers.py).
The top floor: they run studies through the registry and the harness."""

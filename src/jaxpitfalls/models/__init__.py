"""Equinox models converted from random-init (or local) Hugging Face checkpoints."""

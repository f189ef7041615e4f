"""Reproducible measurements of JAX/Equinox performance pitfalls, driven by a Snakemake workflow."""

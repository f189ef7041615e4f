"""The studies: each subfolder with a `spec.py` is one (contract/interface.py says what its parts provide).
The registry that finds and imports them is registry.py; nothing else lists them."""

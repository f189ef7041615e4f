"""The release history: a study's ratios across a library's releases, and the steps between them."""

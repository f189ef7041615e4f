"""The release history: a study's ratios across a library's releases, each release's level over repeated jobs, and
the steps between them."""

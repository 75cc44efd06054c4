"""Process plumbing the wiki never sees: forked processes, C library calls, locks, JSON and YAML I/O, schemas."""

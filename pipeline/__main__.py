"""Allow `python -m pipeline`."""

from pipeline.cli import entry

entry()

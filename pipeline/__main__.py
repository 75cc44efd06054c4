"""Allow `python -m pipeline`."""

from pipeline.cli import main

raise SystemExit(main())

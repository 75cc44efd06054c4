"""One module per `pipeline` subcommand, each exposing `register(subparsers)`.

COMMANDS is the order in which `pipeline --help` lists them.
"""

from pipeline.commands import build, capture, jobs, status, work

COMMANDS = (build, capture, work, jobs, status)

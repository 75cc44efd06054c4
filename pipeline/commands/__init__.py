"""One module per `pipeline` subcommand, each exposing `register(subparsers)`.

COMMANDS is the order in which `pipeline --help` lists them.
"""

from pipeline.commands import build, capture, check, corpus, jobs, serve, spool, status, suggest, work

COMMANDS = (build, serve, check, suggest, capture, work, jobs, status, spool, corpus)

"""One module per `pipeline` subcommand, each exposing `register(subparsers)`.

COMMANDS is the order in which `pipeline --help` lists them; the cli imports
only the module of the command being run (`build` should not pay for `serve`).
"""

COMMANDS = ("build", "serve", "check", "suggest", "capture", "work", "jobs", "status", "spool", "corpus")

"""Exceptions that the CLI turns into one clear line instead of a traceback, and the check that raises one for a
folder a command would make or write in but cannot."""

import os


class UserError(Exception):
    """An expected problem caused by input or configuration (exit status 1)."""


class ConfigError(UserError):
    """wiki.yaml is missing a value, has a wrong type, or names an unknown option."""


def require_folder(folder: os.PathLike | str, name: str) -> None:
    """A UserError when `folder` (the `name` folder: output, state), or the nearest of its parents that exists, is
    not a folder: a command would make it, or write in it."""
    existing = os.path.abspath(folder)
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    if os.path.isdir(existing):
        return
    if existing == os.path.abspath(folder):
        raise UserError(f"{folder}: the {name} folder is not a folder")
    raise UserError(f"{folder}: the {name} folder cannot be made: {existing} is not a folder")

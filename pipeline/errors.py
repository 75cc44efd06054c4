"""Exceptions that the CLI turns into one clear line instead of a traceback."""


class UserError(Exception):
    """An expected problem caused by input or configuration (exit status 1)."""


class ConfigError(UserError):
    """wiki.yaml is missing a value, has a wrong type, or names an unknown option."""

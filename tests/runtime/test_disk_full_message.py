"""A full disk, however it comes back (an OSError, SQLite's error, either from a forked process), is one line
naming the path and the cause; anything else is left as it was."""

from __future__ import annotations

import errno
import sqlite3
import traceback

import pytest

from pipeline.errors import UserError
from pipeline.runtime.disk_full import disk_full_is_an_error, full_disk_message
from pipeline.runtime.forks import ForkedError, fork_map


def test_an_os_error_names_its_file_and_the_cause(tmp_path):
    exc = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "site" / "a.html"))
    message = full_disk_message(exc, [tmp_path])
    assert message == f"{tmp_path / 'site' / 'a.html'}: No space left on device; free some space and build again"


def test_a_write_that_names_no_file_is_told_by_the_first_folder_given(tmp_path):
    message = full_disk_message(OSError(errno.EDQUOT, "Disk quota exceeded"), [tmp_path / "site", tmp_path / "state"])
    assert message.startswith(f"{tmp_path / 'site'}: Disk quota exceeded;")


def test_sqlite_s_full_database_names_the_state_folder(tmp_path):
    message = full_disk_message(sqlite3.OperationalError("database or disk is full"), [tmp_path / "state"])
    assert message.startswith(f"{tmp_path / 'state'}: the state database could not be written")


def _forked_error(error: BaseException) -> ForkedError:
    """The ForkedError of a forked share that raised `error`."""

    def share(number):
        if number:
            raise error
        return number

    with pytest.raises(ForkedError) as raised:
        fork_map(share, [0, 1])
    return raised.value


@pytest.mark.parametrize("name", ["b.html", "o'brien.html", 'say "hi": now.html'])
def test_a_forked_process_s_full_disk_comes_back_as_its_error(tmp_path, name):
    """The error itself, not its traceback's text: a path with quotes or a colon is named as it is."""
    target = tmp_path / "site" / name
    raised = _forked_error(OSError(errno.ENOSPC, "No space left on device", str(target)))
    message = full_disk_message(raised, [tmp_path])
    assert message == f"{target}: No space left on device; free some space and build again"
    full = _forked_error(sqlite3.OperationalError("database or disk is full"))
    assert full_disk_message(full, [tmp_path / "state"]).startswith(f"{tmp_path / 'state'}: the state database")


def test_a_forked_error_that_does_not_pickle_is_no_full_disk(tmp_path):
    class Local(OSError):  # a class of a function's own: pickle cannot name it
        pass

    raised = _forked_error(Local(errno.ENOSPC, "No space left on device", "x"))
    assert raised.cause is None and "Local" in str(raised)
    assert full_disk_message(raised, [tmp_path]) is None


def test_other_errors_are_not_a_full_disk(tmp_path):
    assert full_disk_message(OSError(errno.EACCES, "Permission denied", "x"), [tmp_path]) is None
    assert full_disk_message(ForkedError(traceback.format_exc() + "ValueError: bad"), [tmp_path]) is None
    assert full_disk_message(sqlite3.OperationalError("no such table: x"), [tmp_path]) is None
    with pytest.raises(PermissionError):
        with disk_full_is_an_error([tmp_path]):
            raise PermissionError(errno.EACCES, "Permission denied", "x")


def test_the_block_raises_a_user_error_for_a_full_disk(tmp_path):
    with pytest.raises(UserError, match="No space left on device"):
        with disk_full_is_an_error([tmp_path]):
            raise OSError(errno.ENOSPC, "No space left on device", "x")

"""A full disk, however it comes back (an OSError, SQLite's error, a forked process's traceback), is one line
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


def test_a_forked_process_s_full_disk_is_read_from_its_traceback(tmp_path):
    target = tmp_path / "site" / "b.html"

    def write(share):
        if share:
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return share

    with pytest.raises(ForkedError) as raised:
        fork_map(write, [0, 1])
    message = full_disk_message(raised.value, [tmp_path])
    assert message == f"{target}: No space left on device; free some space and build again"


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

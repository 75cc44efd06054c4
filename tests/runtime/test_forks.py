"""fork_map, Later, Standby: work in forked processes, results in order, failures never silent."""

import os
import select
import signal
import sys

import pytest

from pipeline.runtime.forks import Afterwards, ForkedError, ForkedHelper, Later, fork_map


def test_results_come_back_in_order_from_other_processes():
    results = fork_map(lambda share: (share * share, os.getpid()), [1, 2, 3, 4])
    assert [square for square, _ in results] == [1, 4, 9, 16]
    assert results[0][1] == os.getpid() and len({pid for _, pid in results}) == 4


def test_each_result_is_handed_on_before_the_next_is_read_and_every_share_may_run_elsewhere():
    read, write = os.pipe()
    handed = []

    def share(number):
        if number == 1:  # the second share's process waits for the first result to be handed on (not for ever)
            assert select.select([read], [], [], 60)[0] and os.read(read, 1) == b"x"
        return number, os.getpid()

    def each(result):
        handed.append(result[0])
        os.write(write, b"x")
        return result[0] * 10

    try:
        assert fork_map(share, [0, 1], each) == [0, 10]
        assert handed == [0, 1]
        forked = fork_map(lambda number: os.getpid(), [0, 1], here=False)
        assert os.getpid() not in forked and len(set(forked)) == 2
    finally:
        os.close(read)
        os.close(write)


def test_a_result_that_does_not_pickle_is_reported():
    with pytest.raises(ForkedError, match="died"):
        fork_map(lambda share: (lambda: share) if share else 0, [0, 1])


def _failing_on(number: int):
    """A function of a share or item that raises on `number`, and gives back the others."""

    def function(value):
        if value == number:
            raise ValueError(f"{value} fails")
        return value

    return function


def test_an_exception_in_a_child_is_raised_here():
    with pytest.raises(ForkedError, match="2 fails") as raised:
        fork_map(_failing_on(2), [1, 2])
    assert "Traceback" in str(raised.value) and raised.value.raised().endswith("2 fails")  # in one line


def test_a_child_that_dies_is_reported():
    with pytest.raises(ForkedError, match="died") as raised:
        fork_map(lambda share: os._exit(3) if share else 0, [0, 1])
    assert raised.value.raised() == "a forked process died before sending its result"


def test_when_this_process_fails_its_children_are_stopped_and_reaped():
    read, write = os.pipe()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)  # as `spool drain` has one

    def share(number):
        if number == 0:
            raise ValueError("this process fails first")
        os.read(read, 1)  # the child waits for ever: nothing is written

    try:
        with pytest.raises(ValueError, match="fails first"):
            fork_map(share, [0, 1])
        with pytest.raises(ChildProcessError):  # no child left, running or unreaped
            os.waitpid(-1, os.WNOHANG)
    finally:
        signal.signal(signal.SIGTERM, previous)
        os.close(read)
        os.close(write)


def test_what_a_child_prints_is_not_lost_nor_what_this_process_had_not_yet_printed(tmp_path, monkeypatch):
    out = open(tmp_path / "out", "w", buffering=8192)  # buffered, as a pipe or file is: not a terminal
    monkeypatch.setattr(sys, "stdout", out)
    print("before", end=";")  # still in this process's buffer when it forks
    fork_map(lambda share: print(f"share {share}", end=";"), [0, 1])
    out.close()
    printed = (tmp_path / "out").read_text()
    assert printed.count("before") == 1 and "share 0;" in printed and "share 1;" in printed


def test_later_runs_every_share_elsewhere_while_this_process_goes_on_and_keeps_the_order():
    read, write = os.pipe()
    later = Later(lambda item: (item, os.getpid(), os.read(read, 1)), list(range(5)), 2)  # each waits for a byte
    os.write(write, b"x" * 5)  # only this process's going on lets them finish
    results = later.result()
    os.close(read)
    os.close(write)
    assert [item for item, _, _ in results] == list(range(5))
    assert os.getpid() not in {pid for _, pid, _ in results} and len({pid for _, pid, _ in results}) == 2


def test_later_with_one_share_runs_here_when_asked():
    ran = []
    later = Later(lambda item: ran.append(item) or os.getpid(), [1, 2], 1)
    assert ran == []
    assert later.result() == [os.getpid()] * 2 and ran == [1, 2]


def test_later_raises_a_childs_failure_and_stops_what_it_never_asks_for():
    with pytest.raises(ForkedError, match="3 fails"):
        Later(_failing_on(3), [1, 2, 3, 4], 2).result()
    read, write = os.pipe()
    later = Later(lambda item: os.read(read, 1), [1, 2], 2)  # would wait for ever: nothing is written
    later.stop()
    os.close(read)
    os.close(write)
    with pytest.raises(ChildProcessError):  # no child left, running or unreaped
        os.waitpid(-1, os.WNOHANG)


SEEN: list[str] = []  # what a standby process sees of this one: as it was when forked


def _seen(word: str):
    if word == "fail":
        raise ValueError("the call fails")
    return word, os.getpid(), list(SEEN)


def _no_child_left():
    with pytest.raises(ChildProcessError):  # none running, none unreaped
        os.waitpid(-1, os.WNOHANG)


def test_a_standby_makes_the_call_given_after_it_was_forked_in_the_process_forked_before(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "SEEN", [])
    with ForkedHelper() as helper:
        SEEN.append("after the fork")
        helper.start(_seen, "word")
        word, pid, seen = helper.result()
    assert word == "word" and pid != os.getpid() and seen == []
    _no_child_left()


def test_a_standby_not_forked_makes_the_call_here_when_asked():
    with ForkedHelper(forked=False) as helper:
        helper.start(_seen, "word")
        assert helper.result()[1] == os.getpid()


def test_a_standby_is_ready_once_its_call_has_sent_its_result_and_always_without_a_process():
    before, after = os.pipe()  # made before the fork: the standby's call waits on it
    try:
        with ForkedHelper() as helper:
            assert helper.ready()  # no call given: nothing to wait for
            helper.start(os.read, before, 1)
            assert not helper.ready()  # its call waits for the byte not yet written
            os.write(after, b"x")
            assert helper.result() == b"x" and helper.ready()
        with ForkedHelper(forked=False) as here:
            here.start(os.getpid)
            assert here.ready() and here.result() == os.getpid()  # made here when asked: never waited for
    finally:
        os.close(before)
        os.close(after)
    _no_child_left()


def test_a_standby_is_asked_whether_it_is_ready_whatever_its_pipes_descriptors_are_numbered():
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # as a long-lived process may hold: past 1023
    before, after = os.pipe()
    try:
        with ForkedHelper() as helper:
            helper.start(os.read, before, 1)
            assert helper._results.fileno() > 1024 and not helper.ready()  # select() refused such a descriptor
            os.write(after, b"x")
            assert helper.result() == b"x"
    finally:
        for descriptor in [*held, before, after]:
            os.close(descriptor)
    _no_child_left()


def test_a_standby_makes_its_calls_one_after_the_other_in_the_same_process():
    with ForkedHelper() as helper:
        helper.start(_seen, "first")
        with pytest.raises(RuntimeError, match="one call at a time"):
            helper.start(_seen, "too soon")
        first = helper.result()
        helper.start(_seen, "second")
        second = helper.result()
    assert (first[0], second[0]) == ("first", "second") and first[1] == second[1] != os.getpid()


def _answer_then_wait(before: int) -> Afterwards:
    def then():
        os.read(before, 1)  # waits for the test's byte
        SEEN.append("then ran")

    return Afterwards("answered", then)


def _answer_then_fail() -> Afterwards:
    return Afterwards("answered", lambda: 1 / 0)


def test_a_call_answers_first_and_does_what_it_has_left_before_the_next_call(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "SEEN", [])
    before, after = os.pipe()
    try:
        with ForkedHelper() as helper:
            helper.start(_answer_then_wait, before)
            assert helper.result() == "answered"  # sent while what it has left waits for the byte
            helper.start(_seen, "next")
            assert not helper.ready()  # the next call waits behind it
            os.write(after, b"x")
            assert helper.result()[2] == ["then ran"]
            helper.start(_answer_then_fail)
            assert helper.result() == "answered"
            helper.start(_seen, "after a failure")  # what is left failing fails no call
            assert helper.result()[0] == "after a failure"
        with ForkedHelper(forked=False) as here:
            here.start(_answer_then_fail)
            assert here.result() == "answered"  # made here: its value alone
    finally:
        os.close(before)
        os.close(after)
    _no_child_left()


def test_a_call_that_fails_in_the_standby_is_made_again_here_and_raises_as_itself():
    with ForkedHelper() as helper:
        helper.start(_seen, "fail")
        with pytest.raises(ValueError, match="the call fails"):  # not a ForkedError: raised here
            helper.result()
        helper.start(_seen, "word")
        assert helper.result()[1] != os.getpid()  # the process still takes calls
    with ForkedHelper():  # never given a call
        pass
    _no_child_left()


def _dies_elsewhere(pid: int) -> str:
    if os.getpid() != pid:
        os._exit(3)
    return "made here"


def test_a_call_whose_standby_died_is_made_here_and_so_are_the_next():
    with ForkedHelper() as helper:
        helper.start(_dies_elsewhere, os.getpid())
        assert helper.result() == "made here"
        helper.start(_seen, "word")
        assert helper.result()[1] == os.getpid()
    _no_child_left()


def test_a_process_forked_after_the_standby_does_not_hold_its_call_back():
    read, write = os.pipe()
    with ForkedHelper() as helper:
        later = Later(lambda item: os.read(read, 1), [1, 2], 2)  # alive, holding the standby's pipe, until written to
        helper.start(_seen, "word")
        assert helper.result()[0] == "word"
        os.write(write, b"xx")
        later.result()
    os.close(read)
    os.close(write)
    _no_child_left()


def _niceness() -> int:
    return os.nice(0)


def test_a_standby_forked_nicer_gives_way_to_this_process():
    with ForkedHelper(nice=5) as helper:
        helper.start(_niceness)
        assert helper.result() == min(os.nice(0) + 5, 19)

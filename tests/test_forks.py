"""fork_map: shares in forked processes, results in order, failures never silent."""

import os

import pytest

from pipeline.forks import ForkedError, fork_map


def test_results_come_back_in_order_from_other_processes():
    results = fork_map(lambda share: (share * share, os.getpid()), [1, 2, 3, 4])
    assert [square for square, _ in results] == [1, 4, 9, 16]
    assert results[0][1] == os.getpid() and len({pid for _, pid in results}) == 4


def test_an_exception_in_a_child_is_raised_here():
    def boom(share):
        if share == 2:
            raise ValueError("share two fails")
        return share

    with pytest.raises(ForkedError, match="share two fails"):
        fork_map(boom, [1, 2])


def test_a_child_that_dies_is_reported():
    with pytest.raises(ForkedError, match="died"):
        fork_map(lambda share: os._exit(3) if share else 0, [0, 1])

"""A read-only mapping pickled in shards, each unpickled the first time one of its keys is asked for.

A pass's index kept between builds (KEEP) is unpickled by every build that
plans in its world, whole: the link index of a 10,000-article wiki (13,000
pages in five lookup tables) took 70-90 ms of each edit build, whose one
edited article's select then asks it for a few dozen keys. An index pickles
its big dicts as `Sharded` (`Sharded.of`): one comes back as its shards'
bytes, and a key's lookup unpickles only the shard the key falls in (by a
CRC of the key, the same in every process). Going through all of it (a
patched index copies every table) unpickles every shard once.

Keys are strings. A Sharded iterates its shards in turn: not in the order the
dict it was made of was filled. It is never changed in place: an index that
changes is made of plain dicts again (`dict(sharded.items())`: shard by shard,
not a lookup per key).
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import ItemsView, Iterator, Mapping

SHARDS = 256  # a few dozen lookups of a 13,000-key table unpickle about a tenth of it


def _shard_of(key: str, shards: int) -> int:
    return zlib.crc32(key.encode()) % shards


class Sharded(Mapping):
    """A dict of string keys, kept as pickled shards and read a shard at a time."""

    __slots__ = ("_pickled", "_opened", "_length")

    def __init__(self, pickled: tuple[bytes, ...], length: int) -> None:
        self._pickled = pickled
        self._opened: list[dict | None] = [None] * len(pickled)
        self._length = length

    @classmethod
    def of(cls, mapping: Mapping, shards: int = SHARDS) -> Sharded:
        """`mapping` in `shards` shards (itself, when it is one already)."""
        if isinstance(mapping, Sharded):
            return mapping
        parts: list[dict] = [{} for _ in range(shards)]
        for key, value in mapping.items():
            parts[_shard_of(key, shards)][key] = value
        return cls(tuple(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL) for part in parts), len(mapping))

    def _shard(self, number: int) -> dict:
        opened = self._opened[number]
        if opened is None:
            opened = self._opened[number] = pickle.loads(self._pickled[number])
        return opened

    def __getitem__(self, key: str):
        return self._shard(_shard_of(key, len(self._pickled)))[key]

    def get(self, key: str, default=None):
        return self._shard(_shard_of(key, len(self._pickled))).get(key, default)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._shard(_shard_of(key, len(self._pickled)))

    def __iter__(self) -> Iterator[str]:
        for shard in self.shards():
            yield from shard

    def items(self) -> ItemsView:
        """Its items, iterated from each shard's dict (not looked up key by key): `dict(sharded.items())`
        copies it whole at the speed of a dict."""
        return _Items(self)

    def shards(self) -> Iterator[dict]:
        for number in range(len(self._pickled)):
            yield self._shard(number)

    def __len__(self) -> int:
        return self._length

    def __reduce__(self):
        return Sharded, (self._pickled, self._length)


class _Items(ItemsView):
    def __iter__(self):
        for shard in self._mapping.shards():
            yield from shard.items()

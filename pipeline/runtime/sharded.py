"""A read-only mapping pickled in shards, each unpickled the first time one of its keys is asked for.

A pass's index kept between builds (KEEP) is unpickled by every build that
plans in its read set, whole: the link index of a big wiki (a page per
article in five lookup tables) was a large part of each edit build, whose one
edited article's select then asks it for a few dozen keys. An index pickles
its big dicts as `Sharded` (`Sharded.of`): one comes back as its shards'
bytes, and a key's lookup unpickles only the shard the key falls in (by a
CRC of the key, the same in every process). Going through all of it (a
patched index copies every table) unpickles every shard once.

Keys are strings. A Sharded iterates its shards in turn: not in the order the
dict it was made of was filled. It is never changed in place: an index that
changes (patched after a title change) holds each as an `Overlay`, the keys it
set or removed over the Sharded, which is pickled again as a Sharded sharing
the bytes of every shard no changed key falls in (pickling a big link index
whole, or copying it into dicts to patch, cost an edit build much more).
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, MutableMapping

SHARDS = 256  # a few dozen lookups of a big wiki's table unpickle a small part of it
_MISSING = object()


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
        """`mapping` in `shards` shards (itself, when it is one already; an Overlay's sharing its base's)."""
        if isinstance(mapping, Sharded):
            return mapping
        if isinstance(mapping, Overlay):
            return mapping.sharded()
        parts: list[dict] = [{} for _ in range(shards)]
        for key, value in mapping.items():
            parts[_shard_of(key, shards)][key] = value
        return cls(tuple(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL) for part in parts), len(mapping))

    def changed(self, updates: Mapping[str, object], removed: Iterable[str]) -> Sharded:
        """This mapping with `updates` set and `removed` taken out: the shards those keys fall in are
        pickled again, the others' bytes shared."""
        touched: dict[int, dict] = {}
        for key in [*updates, *removed]:
            number = _shard_of(key, len(self._pickled))
            if number not in touched:
                touched[number] = dict(self._shard(number))
        pickled, length = list(self._pickled), self._length
        for key in removed:
            part = touched[_shard_of(key, len(pickled))]
            length -= part.pop(key, _MISSING) is not _MISSING
        for key, value in updates.items():
            part = touched[_shard_of(key, len(pickled))]
            length += key not in part
            part[key] = value
        for number, part in touched.items():
            pickled[number] = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
        return Sharded(tuple(pickled), length)

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


class Overlay(MutableMapping):
    """A mapping (a kept Sharded) with some keys set or removed, leaving it as it was: `sharded()` pickles
    only the shards they fall in again. Values read from the base must not be changed in place."""

    __slots__ = ("base", "updates", "removed")

    def __init__(self, base: Mapping) -> None:
        self.base = base
        self.updates: dict = {}
        self.removed: set = set()

    def __getitem__(self, key):
        if key in self.updates:
            return self.updates[key]
        if key in self.removed:
            raise KeyError(key)
        return self.base[key]

    def __setitem__(self, key, value) -> None:
        self.updates[key] = value
        self.removed.discard(key)

    def __delitem__(self, key) -> None:
        if key not in self:
            raise KeyError(key)
        self.updates.pop(key, None)
        self.removed.add(key)

    def __contains__(self, key) -> bool:
        return key in self.updates or (key not in self.removed and key in self.base)

    def __iter__(self) -> Iterator:
        yield from (key for key in self.base if key not in self.updates and key not in self.removed)
        yield from self.updates

    def __len__(self) -> int:
        added = sum(1 for key in self.updates if key not in self.base)
        return len(self.base) + added - sum(1 for key in self.removed if key in self.base)

    def __reduce__(self):  # kept as the Sharded it makes
        return Sharded.of(self).__reduce__()

    def touched(self) -> set:
        """The keys set or removed (maybe to what the base holds)."""
        return self.updates.keys() | self.removed

    def sharded(self, convert: Callable = lambda value: value) -> Sharded:
        """As a Sharded, each value made `convert(value)`: over a Sharded, only the values set are (its own
        must be so already), and only the shards they fall in are pickled again."""
        if isinstance(self.base, Sharded):
            return self.base.changed({key: convert(value) for key, value in self.updates.items()}, self.removed)
        return Sharded.of({key: convert(value) for key, value in self.items()})

"""The pass contract: what a pass declares (`Pass`), what it may declare to re-run less (`Incremental`),
and a pass as the build holds it once loaded and configured (`PassSpec`).

A pass module ends with one declaration, `PASS = Pass(...)`:

- `name` and `version`: bump the version whenever the output for the same
  input may change; the next plan then re-runs the pass everywhere.
- `contract`: a JSON Schema of its output, an object with at least a
  `diagnostics` list (`base.DIAGNOSTICS_SCHEMA`); `contract_version` numbers it.
- `run(article, inputs) -> dict`: a pure function of an `Article` and the
  plain-data inputs `select` chose.
- `needs` (passes whose results it reads) and `select(article, wiki) -> dict`:
  the exact slice of the wiki the pass reads. The job's input fingerprint
  hashes exactly that slice, so a change anywhere else never re-runs the job.
  Without `select`, a pass reads only its capture.
- `wiki_options`: the options of `wiki.yaml` its `select` reads through
  `wiki.options` (`autolink`, `pairing`...); `languages`,
  `default_language`, `base_url` and `markdown` (the resolved extension
  table) are always there.
- `options`: a dataclass, the typed section of `wiki.yaml` the pass owns
  (given where the pass is named in `passes:`, checked like every option).
  Its values reach `run` as `inputs["pass_options"]` and are part of every
  job's fingerprint: changing one re-runs that pass, nothing else.
- `lazy_fields`: big fields of the output that no select reads itself (the
  page HTML); a build leaves them in the store and the site reads them page
  by page.
- `incremental`: an `Incremental`, only to re-plan less. A pass without one
  is correct: any change to the content re-plans it everywhere (its jobs are
  still reused where their slices did not change).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Callable

from pipeline.content.article import Article
from pipeline.passes.base import Wiki

# What `Incremental.reads` may name besides the passes in `needs` (see pipeline/incremental/job_reuse.py).
WIKI_PARTS = ("options", "data", "facts", "sources", "attachments")
OPTIONS_INPUT = "pass_options"  # the input that holds a pass's own options


class PassLoadError(Exception):
    """A pass module is missing or does not fulfil the pass contract."""


@dataclass(frozen=True)
class Incremental:
    """What a pass's `select` reads of the wiki, so that planning after an edit calls it only where that changed.

    - `reads`: what it reads across the wiki: names in `WIKI_PARTS` and of passes in `needs` (each may also be a
      function of the wiki returning the part it reads as plain data, for a narrower part). None: everything.
    - `reads_own`: passes whose results it reads for the article itself only, and functions
      `(article, wiki) -> plain data` for what it reads of other articles on this article's behalf
      (`base.by_column` writes one for all articles at once).
    - `keep`: keys of `wiki.memo` values (indexes) its selects build from `reads` alone, and that pickle: a
      build in the same read set loads them instead of building them again.
    - `keep_by_capture`: keys of `wiki.memo` dicts capture id -> what the pass derives from that capture alone
      and the options, kept between builds whatever the read set.
    - `affected(old, wiki, touched) -> capture ids | None`, with `keep`: when the read set changed in results
      and paths alone, the articles whose select may read something else now, found from `old` (the `keep`
      values of the last read set); None when it cannot tell.
    - `touches(article, wiki) -> keys`, with `affected`: what that select read of the `keep` values.
    """

    reads: tuple | None = None
    reads_own: tuple = ()
    keep: tuple[str, ...] = ()
    keep_by_capture: tuple[str, ...] = ()
    affected: Callable[[dict, Wiki, Mapping[int, frozenset]], Iterable[int] | None] | None = None
    touches: Callable[[Article, Wiki], Iterable[str]] | None = None

    def check(self, needs: tuple[str, ...], where: str) -> None:
        """Raise PassLoadError naming `where` when the declaration cannot be right."""
        for name in ("reads_own", "keep", "keep_by_capture"):
            if isinstance(getattr(self, name), str):
                raise PassLoadError(f"pass {where}: incremental {name} must be a tuple")
        reads = self.reads or ()
        if isinstance(reads, str) or not all(isinstance(part, str) or callable(part) for part in (*reads, *self.reads_own)):
            raise PassLoadError(f"pass {where}: incremental reads must be tuples of names (or functions)")
        unknown = [part for part in (*reads, *self.reads_own) if isinstance(part, str) and part not in WIKI_PARTS + needs]
        if unknown or set(self.reads_own) & set(WIKI_PARTS):
            raise PassLoadError(f"pass {where}: incremental reads may name {', '.join(WIKI_PARTS)} and passes in needs; "
                                f"reads_own passes in needs (each may also be a function)")  # fmt: skip
        if not all(isinstance(key, str) and key for key in (*self.keep, *self.keep_by_capture)):
            raise PassLoadError(f"pass {where}: incremental keep and keep_by_capture must be tuples of memo keys")
        self._check_order(where)

    def _check_order(self, where: str) -> None:
        if not all(value is None or callable(value) for value in (self.affected, self.touches)):
            raise PassLoadError(f"pass {where}: incremental affected and touches must be functions")
        for present, needed, why in (
            (self.reads_own or self.keep, self.reads is not None, "needs reads (what the rest is built from)"),
            (self.affected, self.keep, "affected needs keep (the values it compares with the last read set's)"),
            (self.touches, self.affected, "touches needs affected (which reads what it names)"),
        ):
            if present and not needed:
                raise PassLoadError(f"pass {where}: incremental {why}")


@dataclass(frozen=True)
class Pass:
    """A pass as its module declares it (see the module docstring)."""

    name: str
    version: int
    contract: dict
    run: Callable[[Article, dict], dict]
    select: Callable[[Article, Wiki], dict] | None = None
    needs: tuple[str, ...] = ()
    wiki_options: tuple[str, ...] = ()
    options: type | None = None
    lazy_fields: tuple[str, ...] = ()
    incremental: Incremental | None = None
    contract_version: int = 1


@dataclass(frozen=True)
class PassSpec(Pass):
    """A pass loaded and checked: where it came from, its compiled contract, its options as `wiki.yaml` sets them."""

    module: str = ""
    validate: Callable[[Any], Any] = lambda output: output  # raises ValueError subclasses on invalid output
    settings: Any = None  # an instance of `options`, or None

    @property
    def plan(self) -> Incremental:
        """The incremental declaration, the conservative one when it made none."""
        return self.incremental or UNDECLARED

    def inputs_of(self, article: Article, wiki: Wiki) -> dict:
        """What the job of `article` reads: the slice `select` chose, and the pass's own options."""
        slice_ = self.select(article, wiki) if self.select else {}
        if self.settings is not None:
            slice_ = {**slice_, OPTIONS_INPUT: dataclasses.asdict(self.settings)}
        return slice_

    def call(self, article: Article, inputs: dict) -> dict:
        """`run` on the inputs a job stored, its options typed again."""
        if self.options is not None and isinstance(inputs.get(OPTIONS_INPUT), dict):
            inputs = {**inputs, OPTIONS_INPUT: self.options(**inputs[OPTIONS_INPUT])}
        return self.run(article, inputs)


UNDECLARED = Incremental()

"""Each article's history page: its revisions, newest first: the git commits of its file (renames followed), each
with its diff (`content/git_history.py`), where the content folder is in a git repository; else the capture log's."""

from __future__ import annotations

from markupsafe import Markup, escape

from pipeline.content.git_history import Diffs, FileChange
from pipeline.site.emitters.base import Emitter
from pipeline.site.model import ArticlePage
from pipeline.site.render import Planned
from pipeline.urls import history_url

MAX_DIFFS = 50  # the newest revisions shown with their diff; older ones are listed


class DiffHtml:
    """Each revision's diff as HTML, its lines escaped (they are content), made when its page is rendered: one
    string, not a template loop over thousands of lines."""

    def __init__(self, diffs: Diffs) -> None:
        self.diffs = diffs

    def of(self, change: FileChange | None, not_shown: str) -> Markup:
        """The diff of `change`; none for a file's first revision (it would be the whole file)."""
        if change is None or change.before is None:
            return Markup("")
        lines = self.diffs.lines(change)
        texts = [f"… {text} {not_shown}" if kind == "more" else text for kind, text in lines]
        escaped = str(escape("\n".join(texts))).split("\n")  # at once: a diff's lines hold no line break
        return Markup("".join(f'<span class="diff-{kind}">{text}</span>' for (kind, _), text in zip(lines, escaped)))

    def as_json(self) -> str:  # a page's digest
        return self.diffs.as_json()


def history_page(
    page: ArticlePage, revisions: list, words: dict, diffs: DiffHtml | None = None, shallow: bool = False
) -> Planned:
    """`words`: the theme's in the page's language (`Settings.words`)."""
    title = f"{words['history_of']} {page.title}"
    context = {"page": page, "revisions": revisions, "diffs": diffs, "shallow": shallow, "max_diffs": MAX_DIFFS}
    planned = Planned(page.history_url, page.lang, "history.html", title, context, ("history", page.path), sitemap=False)
    # Its translations' history pages: where its language switcher leads.
    planned.alternates = [(page.lang, page.history_url)] + [(t.lang, history_url(t.url)) for t in page.translations]
    return planned


def emit(site, out) -> None:
    _plan(site, out, site.model.articles)


def emit_changed(site, changes, out) -> None:
    _plan(site, out, site.model.articles if changes.every_page else site.model.pages_at(changes.articles))


def _plan(site, out, pages: list[ArticlePage]) -> None:
    """The history pages of `pages`; their diffs read as each is rendered, by one git process a rendering process,
    this one's ended once every page is in place."""
    git = site.git
    diffs = Diffs(git.top) if git is not None else None
    shown = DiffHtml(diffs) if diffs is not None else None
    for page in pages:
        revisions = site.histories.get(page.path, [])
        out.page(history_page(page, revisions, site.settings.words(page.lang), shown, bool(git and git.shallow)))
    if diffs is not None:
        out.after(lambda report: diffs.close())


EMITTER = Emitter("history", emit, emit_changed)

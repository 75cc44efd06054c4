"""The navigation: the tree of each language (folders, categories, `nav:`; weight, then title), the current page's
branch open, breadcrumbs, previous/next within a section, and which pages an edit renders again."""

from __future__ import annotations

import re

import pytest

from pipeline.config import load_config
from pipeline.errors import ConfigError
from pipeline.site import navigation, sidebar
from pipeline.site.navigation import Node, Tree
from tests.site.helpers import build_site, read

FOLDERS = {
    "guides/_index.md": "---\ntitle: Guides\nweight: 2\n---\n\nAll the guides.\n",
    "guides/bravo.md": "---\ntitle: Bravo\n---\n\nB.\n",
    "guides/zulu.md": "---\ntitle: Zulu\nweight: 1\n---\n\nZ.\n",
    "guides/deep/inner.md": "---\ntitle: Inner\n---\n\nI.\n",
    "ref/xray.md": "---\ntitle: X-ray\n---\n\nX.\n",
    "top.md": "---\ntitle: Top\n---\n\nT.\n",
}


def tree_of(html: str) -> str:
    return re.search(r'<ul class="nav-tree">.*?</nav>', html, re.S)[0]


def titles(html: str) -> list[str]:
    """The tree's sections and pages, in order (`[Section]`)."""
    found = re.findall(r"<summary>([^<]*)</summary>|<a [^>]*>([^<]*)</a>", tree_of(html))
    return [f"[{section}]" if section else page for section, page in found]


def test_folders_make_sections_ordered_by_weight_then_title(make_wiki):
    config = make_wiki(FOLDERS)
    build_site(config)
    html = read(config.out_dir, "top/index.html")
    # Guides (its page's weight 2) first; Ref (a folder without a page: its name) and Top by title. Within
    # Guides: its own page, Zulu (weight 1), then the subfolder and Bravo by title.
    assert titles(html) == ["[Guides]", "Guides", "Zulu", "Bravo", "[Deep]", "Inner", "[Ref]", "X-ray", "Top"]


def test_a_folder_is_named_as_written_not_as_its_url(make_wiki):
    config = make_wiki({"Deep Folder/Über Größe/leaf.md": "# Leaf\n", "API/C++/x.md": "# X\n", "how-to/y.md": "# Y\n"})
    build_site(config)
    html = read(config.out_dir, "deep-folder/über-größe/leaf/index.html")
    assert titles(html) == ["[API]", "[C++]", "X", "[Deep Folder]", "[Über Größe]", "Leaf", "[How to]", "Y"]
    assert re.findall(r"<li>([^<]*)</li>", html.split('class="breadcrumbs"')[1].split("</nav>")[0]) == [
        "Deep Folder", "Über Größe"]  # fmt: skip


def test_categories_make_sections_in_the_order_categories_yaml_gives(make_wiki):
    config = make_wiki({
        "categories.yaml": "categories:\n  - id: later\n    name: Later\n    order: 2\n  - id: first\n    name: First\n    order: 1\n",
        "a.md": "---\ntitle: Apple\ncategory: later\n---\n\nA.\n",
        "b.md": "---\ntitle: Banana\ncategory: first\norder: 5\n---\n\nB.\n",
        "c.md": "---\ntitle: Cherry\ncategory: first\norder: 1\n---\n\nC.\n",
        "d.md": "---\ntitle: Date\n---\n\nD.\n",
    })  # fmt: skip
    build_site(config)
    html = read(config.out_dir, "d/index.html")
    assert titles(html) == ["[First]", "First", "Cherry", "Banana", "[Later]", "Later", "Apple", "Date"]
    cherry = read(config.out_dir, "c/index.html")  # the category page is the section's, not a neighbour
    assert 'rel="prev"' not in cherry and re.search(r'rel="next"><span>Next</span> Banana', cherry)


def test_the_current_page_is_marked_and_only_its_branch_is_open(make_wiki):
    config = make_wiki(FOLDERS)
    build_site(config)
    tree = tree_of(read(config.out_dir, "guides/deep/inner/index.html"))
    assert tree.count("<details open>") == 2  # Guides and Deep, nothing else
    assert "<details open><summary>Guides</summary>" in tree and "<details open><summary>Deep</summary>" in tree
    assert "<details><summary>Ref</summary>" in tree
    assert re.findall(r'<a aria-current="page" href="([^"]+)"', tree) == ["/guides/deep/inner/"]
    top = tree_of(read(config.out_dir, "top/index.html"))
    assert "<details open>" not in top and 'aria-current="page" href="/top/"' in top


def test_breadcrumbs_lead_from_the_home_page_through_the_sections(make_wiki):
    config = make_wiki(FOLDERS)
    build_site(config)
    html = read(config.out_dir, "guides/deep/inner/index.html")
    crumbs = re.search(r'<nav class="breadcrumbs".*?</nav>', html, re.S)[0]
    # Deep has no page of its own: named, not linked.
    assert re.findall(r"<li>(.*?)</li>", crumbs) == [
        '<a href="/">Main page</a>', '<a href="/guides/">Guides</a>', "Deep", '<span aria-current="page">Inner</span>']


def test_previous_and_next_stay_within_the_section_in_the_trees_order(make_wiki):
    config = make_wiki(FOLDERS)
    build_site(config)
    zulu = read(config.out_dir, "guides/zulu/index.html")
    assert 'href="/guides/" rel="prev"><span>Previous</span> Guides' in zulu
    assert 'href="/guides/bravo/" rel="next"><span>Next</span> Bravo' in zulu
    assert 'class="pager"' not in read(config.out_dir, "guides/deep/inner/index.html")  # alone in its section


def test_nav_in_wiki_yaml_makes_the_tree_and_each_language_shows_its_translations(make_wiki, tmp_path):
    files = {
        "a.md": "---\ntitle: Alpha\npaired_with: a.es.md\n---\n\nA.\n",
        "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\n\nA.\n",
        "b.md": "---\ntitle: Beta\n---\n\nB.\n",
        "c.md": "---\ntitle: Gamma\n---\n\nLeft out of nav.\n",
    }
    (tmp_path / "wiki.yaml").write_text(
        "nav:\n  - Start here: b.md\n  - Topics:\n      - a.md\n      - missing.md\n  - Project: https://example.org/\n",
        encoding="utf-8")  # fmt: skip
    nav = load_config(tmp_path / "wiki.yaml").nav
    config = make_wiki(files, nav=nav, languages=["en", "es"])
    report = build_site(config)
    assert titles(read(config.out_dir, "c/index.html")) == ["Start here", "[Topics]", "Alpha", "Project"]
    assert titles(read(config.out_dir, "es/a/index.html")) == ["[Topics]", "Alfa", "Project"]
    assert "wiki.yaml: nav: no article at 'missing.md'" in report.site.warnings


@pytest.mark.parametrize("nav", [
    "nav: [{Guides: [{a: 1}]}]", "nav: [3]", "nav: [{A: b.md, C: d.md}]", "nav: ['']",
])  # fmt: skip
def test_a_nav_of_the_wrong_shape_is_refused_in_one_line(tmp_path, nav):
    (tmp_path / "wiki.yaml").write_text(nav + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"wiki.yaml: nav.*: item 1: ") as raised:
        load_config(tmp_path / "wiki.yaml")
    assert "\n" not in str(raised.value)


def test_a_body_edit_renders_that_page_only_and_a_retitle_every_pages_tree(make_wiki):
    config = make_wiki(FOLDERS)
    build_site(config)
    zulu = config.content_dir / "guides" / "zulu.md"
    zulu.write_text(FOLDERS["guides/zulu.md"] + "\nMore.\n", encoding="utf-8")
    edited = build_site(config)
    assert {rel for rel in edited.site.written if rel.endswith(".html")} <= {
        "guides/zulu/index.html", "guides/zulu/history/index.html", "special/recent/index.html", "index.html"}
    zulu.write_text(FOLDERS["guides/zulu.md"].replace("Zulu", "Alpha"), encoding="utf-8")
    retitled = build_site(config)
    assert "ref/xray/index.html" in retitled.site.written
    assert titles(read(config.out_dir, "ref/xray/index.html"))[:3] == ["[Guides]", "Guides", "Alpha"]
    zulu.write_text(FOLDERS["guides/zulu.md"].replace("weight: 1\n", ""), encoding="utf-8")
    build_site(config)  # without its weight it goes by its title, in every page's tree
    assert titles(read(config.out_dir, "top/index.html"))[:5] == ["[Guides]", "Guides", "Bravo", "[Deep]", "Inner"]


def test_a_big_tree_lists_the_open_branch_only_around_the_page(monkeypatch):
    monkeypatch.setattr(sidebar, "FULL_TREE", 10)
    pages = [Node(f"Page {n}", f"s/p{n}/") for n in range(100)]
    nodes = [Node("Big", "s/", True, pages), Node("Other", None, True, [Node("Lone", "o/lone/")])]
    places: dict = {}
    total = navigation._place(nodes, (), None, places)
    shown = sidebar.LanguageNav("<nav><!--nav-tree--></nav>", Tree("en", "", nodes, places, total), "/",
                                {"all_url": "special/all/", "section_pages": "All"})  # fmt: skip
    html = str(shown.for_page("s/p50/"))
    listed = re.findall(r'href="/s/p(\d+)/"', html)
    assert len(listed) == sidebar.WINDOW and "50" in listed and "0" not in listed
    assert '<a aria-current="page" href="/s/p50/">' in html
    assert '<a href="/s/">All</a>' in html  # the section's page, and every page below it (no count: see `_more`)
    assert "Lone" not in html and '<a href="/special/all/">All</a>' in html  # closed: a link for its pages
    assert shown.page_key("s/p50/") != shown.page_key("s/p10/")  # each page's own part of a big tree is its own
    outside = str(shown.for_page("s/p50/history/"))  # a page no node links to: every section closed
    assert "aria-current" not in outside and "Page 50" not in outside and '<a href="/s/">Big</a>' in outside
    assert shown.shared == sidebar.LanguageNav("<nav><!--nav-tree--></nav>", Tree("en", "", nodes[:1] + [
        Node("Other", None, True, [Node("Lone, retitled", "o/lone/")])], places, total), "/", shown.labels).shared


def test_in_a_big_tree_a_retitle_or_an_addition_renders_the_pages_around_it_as_a_full_build_does(
    make_wiki, monkeypatch, tmp_path
):
    import shutil

    from pipeline.build import build

    monkeypatch.setattr(sidebar, "FULL_TREE", 10)  # a tree too big to list whole: each page lists its window
    monkeypatch.setattr(sidebar, "WINDOW", 6)
    files = {f"s/p{n:02}.md": f"---\ntitle: Page {n:02}\n---\nText {n}.\n" for n in range(40)}
    config = make_wiki(files, search=False)
    build(config, workers=1, site=True)
    (config.content_dir / "s/p20.md").write_text("---\ntitle: Page 20 renamed\n---\nText 20.\n")
    retitled = {rel for rel in build(config, workers=1, site=True).site.written if rel.startswith("s/p")}
    assert "s/p20/index.html" in retitled and "s/p18/index.html" in retitled  # its neighbours list its title
    assert not {"s/p00/index.html", "s/p39/index.html"} & retitled  # far from it: their trees do not show it
    (config.content_dir / "s/p205.md").write_text("---\ntitle: Page 20.5\n---\nNew.\n")
    added = {rel for rel in build(config, workers=1, site=True).site.written if rel.startswith("s/p")}
    assert "s/p205/index.html" in added and "s/p00/index.html" not in added
    fresh = tmp_path / "fresh"
    shutil.copytree(config.content_dir, fresh / "content")
    clean = load_config(content=fresh / "content", state=fresh / "state", out=fresh / "site")
    build(clean.__class__(**{**vars(clean), "search": False}), workers=1, site=True)
    captured_at = re.compile(rb"\d{4}-\d\d-\d\d[T ][\d:.]+(?:\+00:00| UTC)")  # the copy was captured later
    for page in (config.out_dir / "s").glob("*/index.html"):  # the articles (their histories differ: two captures)
        again = fresh / "site" / page.relative_to(config.out_dir)
        assert captured_at.sub(b"", page.read_bytes()) == captured_at.sub(b"", again.read_bytes()), page


def _big_tree_of_two_sections_built(make_wiki, monkeypatch):
    """A wiki of two folders of 20 pages each (s, t), built, its tree too big for every page to list whole."""
    from pipeline.build import build

    monkeypatch.setattr(sidebar, "FULL_TREE", 10)
    files = {f"{folder}/p{n:02}.md": f"---\ntitle: {folder} {n:02}\n---\nText {n}.\n" for folder in ("s", "t")
             for n in range(20)}  # fmt: skip
    config = make_wiki(files, search=False)
    build(config, workers=1, site=True)
    return config


def test_after_a_retitle_in_a_big_tree_only_the_pages_under_its_section_digest_their_tree(make_wiki, monkeypatch):
    from pipeline.build import build
    from pipeline.site import render
    from pipeline.site.render import PageJob

    config = _big_tree_of_two_sections_built(make_wiki, monkeypatch)
    digested = []
    tree_key = PageJob.tree_key
    monkeypatch.setattr(PageJob, "tree_key", lambda job, page: digested.append(page.url) or tree_key(job, page))
    planned = []
    render_pages = render.render_pages
    monkeypatch.setattr(render, "render_pages", lambda job, pages, *rest: planned.extend(
        render.page_file(page.url) for page in pages) or render_pages(job, pages, *rest))  # fmt: skip
    (config.content_dir / "s/p05.md").write_text("---\ntitle: s 05 renamed\n---\nText 5.\n")
    written = {rel for rel in build(config, workers=1, site=True).site.written if rel.endswith("index.html")}
    assert digested and all(url.startswith("s/") for url in digested)  # t's pages are not looked at again
    # The article pages under the changed section are planned (their tree may show the title), t's are not; of the
    # other pages, only the edit's own: no history page but the retitled article's shows a tree that lists it.
    assert {rel for rel in planned if rel.endswith("/history/index.html")} == {"s/p05/history/index.html"}
    assert {f"s/p{n:02}/index.html" for n in range(20)} <= set(planned)
    assert not any(rel.startswith("t/") for rel in planned)
    assert "s/p05/index.html" in written and "s/p04/index.html" in written  # its neighbour shows the new title
    assert not any(rel.startswith("t/") for rel in written)
    (config.content_dir / "s/index.md").write_text("---\ntitle: The S section\n---\nS.\n")  # a section's title
    digested.clear()
    build(config, workers=1, site=True)
    assert any(url.startswith("t/") for url in digested)  # every page shows the section's title: all digested


def test_the_pages_outside_the_tree_share_one_tree_made_once(monkeypatch):
    monkeypatch.setattr(sidebar, "FULL_TREE", 10)
    nodes = [Node("Big", "s/", True, [Node(f"Page {n}", f"s/p{n}/") for n in range(20)]), Node("Top", "t/")]
    places: dict = {}
    tree = Tree("en", "", nodes, places, navigation._place(nodes, (), None, places))
    labels = {"all_url": "special/all/", "section_pages": "All"}
    shown = sidebar.LanguageNav("<nav><!--nav-tree--></nav>", tree, "/", labels)
    made = []
    monkeypatch.setattr(shown, "_level", lambda *args, level=shown._level: made.append(args[2]) or level(*args))
    histories = [f"s/p{n}/history/" for n in range(20)] + ["special/all/"]
    assert len({str(shown.for_page(url)) for url in histories}) == len({shown.page_key(url) for url in histories}) == 1
    assert made == ["s/p0/history/"]  # once, for the first of them
    assert 'aria-current="page" href="/t/"' in str(shown.for_page("t/"))  # a page at the top is in the tree
    assert shown.page_key("t/") != shown.page_key("special/all/")


def test_a_big_trees_section_digests_change_when_a_page_moves_past_a_section(monkeypatch):
    monkeypatch.setattr(sidebar, "FULL_TREE", 2)

    def sections(nodes: list[Node]) -> dict:
        places: dict = {}
        tree = Tree("en", "", nodes, places, navigation._place(nodes, (), None, places))
        return sidebar.LanguageNav("<nav><!--nav-tree--></nav>", tree, "/", {"all_url": "", "section_pages": ""}).sections

    page, inner = Node("Page", "s/p/"), Node("Inner", None, True, [Node("Deep", "s/i/d/")])
    before = sections([Node("S", "s/", True, [page, inner, Node("Last", "s/l/")])])
    after = sections([Node("S", "s/", True, [inner, page, Node("Last", "s/l/")])])  # the same pages, in another place
    assert before[sidebar.SKELETON] == after[sidebar.SKELETON] and before["0"] != after["0"]


def test_a_pages_key_of_a_big_tree_changes_exactly_when_its_tree_does(monkeypatch):
    monkeypatch.setattr(sidebar, "FULL_TREE", 10)

    def nav(retitled: int) -> sidebar.LanguageNav:
        pages = [Node(f"Page {n}" + (" (new)" if n == retitled else ""), f"s/p{n}/") for n in range(100)]
        deep = Node("Deep", "d/", True, [Node(f"Deep {n}" + (" (new)" if n + 100 == retitled else ""), f"d/p{n}/")
                                         for n in range(40)])  # fmt: skip
        nodes = [Node("Big", "s/", True, pages), Node("Other", None, True, [deep])]
        places: dict = {}
        total = navigation._place(nodes, (), None, places)
        return sidebar.LanguageNav("<nav><!--nav-tree--></nav>", Tree("en", "", nodes, places, total), "/",
                                   {"all_url": "special/all/", "section_pages": "All"})  # fmt: skip

    before = nav(-1)
    urls = [f"s/p{n}/" for n in range(100)] + [f"d/p{n}/" for n in range(40)] + ["d/", "s/", "x/"]
    for retitled in (50, 0, 99, 120):  # a page amid a big section, at its ends, and in a closed section's window
        after = nav(retitled)
        changed = [url for url in urls if before.for_page(url) != after.for_page(url)]
        assert changed and [url for url in urls if before.page_key(url) != after.page_key(url)] == changed


def test_a_folder_tree_made_as_pages_ask_is_the_tree_made_whole():
    from types import SimpleNamespace as Fake

    paths = ["guides/_index.md", "guides/zulu.md", "guides/bravo.md", "guides/deep/inner.md", "guides/deep/index.md",
             "ref/xray.md", "ref/Ünïcode Folder/leaf.md", "top.md", "alpha.md"]  # fmt: skip
    urls = ["guides/", "guides/zulu/", "guides/bravo/", "guides/deep/inner/", "guides/deep/", "ref/xray/",
            "ref/ünïcode-folder/leaf/", "top/", "alpha/"]  # fmt: skip
    names = ["Guides", "Zulu", "Bravo", "Inner", "Deep", "X-ray", "Leaf", "Top", "Alpha"]
    pages = [Fake(path=path, url=url, title=title, lang="en") for path, url, title in zip(paths, urls, names)]
    model = Fake(default_language="en", weights={"guides/zulu.md": 1.0, "guides/deep/index.md": 0.5})

    def made(asked_first: str) -> navigation.FolderTree:
        tree = navigation.FolderTree.of(pages, "en", "", model, [])
        tree.places_of(asked_first)  # makes the sections of that page's branch only
        return tree

    lazy = made("ref/xray/")
    assert lazy.made == {"", "ref"}  # the top, and the folder of the page asked for
    assert [node.title for node in lazy.subsections(lazy.sections["guides"])] == ["Deep"]  # known, not made
    assert lazy.made == {"", "ref"}

    def whole(tree: Tree, nodes: list[Node]) -> list:
        return [(node.title, node.url, whole(tree, tree.children(node)) if node.section else []) for node in nodes]

    tree = made("top/")
    shape = whole(tree, tree.nodes)  # every section made
    places: dict = {}
    assert navigation._place(tree.nodes, (), None, places) == tree.pages == len(pages)
    for url in urls:
        (place,) = places[url]
        (lazy_place,) = made(url).places_of(url)
        assert [n.title for n in lazy_place.sections] == [n.title for n in place.sections], url
        assert [n.url for n in lazy_place.pages] == [n.url for n in place.pages], url
        assert lazy_place.at == place.at, url
    assert shape == [("Alpha", "alpha/", []),
                     ("Guides", "guides/", [("Deep", "guides/deep/", [("Inner", "guides/deep/inner/", [])]),
                                            ("Zulu", "guides/zulu/", []), ("Bravo", "guides/bravo/", [])]),
                     ("Ref", None, [("X-ray", "ref/xray/", []),
                                    ("Ünïcode Folder", None, [("Leaf", "ref/ünïcode-folder/leaf/", [])])]),
                     ("Top", "top/", [])]  # fmt: skip
    assert not lazy.places_of("guides/missing/") and not lazy.links_to("guides/missing/") and lazy.links_to("top/")


def test_an_edit_in_a_big_folder_tree_makes_only_its_branch_and_keeps_the_sections_digests(make_wiki, monkeypatch):
    from pipeline.build import build

    config = _big_tree_of_two_sections_built(make_wiki, monkeypatch)
    made, walked = [], []
    nodes, pages_of = navigation.FolderTree._nodes, sidebar.LanguageNav._pages_of
    monkeypatch.setattr(navigation.FolderTree, "_nodes", lambda tree, folder: made.append(folder) or nodes(tree, folder))
    monkeypatch.setattr(sidebar.LanguageNav, "_pages_of", lambda nav, *args: walked.append(args) or pages_of(nav, *args))
    (config.content_dir / "s/p05.md").write_text("---\ntitle: s 05\n---\nText 5, edited.\n")
    written = build(config, workers=1, site=True).site.written
    assert "s/p05/index.html" in written and not walked  # the sections' digests are the last build's
    assert sorted(made) == ["", "s"]  # the top, and the edited page's section: not t's
    assert titles(read(config.out_dir, "s/p05/index.html"))[:3] == ["[S]", "s 00", "s 01"]
    (config.content_dir / "t/p07.md").write_text("---\ntitle: t 07 renamed\n---\nText 7.\n")
    made.clear()
    build(config, workers=1, site=True)
    assert walked and "t" in made  # a title changed: the tree is made whole, and its sections compared

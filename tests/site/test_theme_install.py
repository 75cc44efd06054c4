"""The built-in theme ships in the package (`templates/` installed as `pipeline.theme`)."""

from __future__ import annotations

import tomllib

import pytest
from jinja2 import Environment, StrictUndefined, UndefinedError

from pipeline.site.render import environment
from pipeline.site.theme import assets, builtin_root
from tests.conftest import REPO

TEMPLATES = ("base.html", "nav.html", "article.html", "home.html", "category.html", "categories.html", "all.html",
             "wanted.html", "recent.html", "history.html", "redirect.html", "404.html", "sitemap.xml", "robots.txt")  # fmt: skip


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {
        ".".join(path.parent.relative_to(REPO).parts)
        for path in (REPO / "pipeline").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders <= set(config["packages"]), "add new packages to [tool.setuptools] packages"
    assert config["package-dir"]["pipeline.theme"] == "templates"


def test_the_builtin_theme_has_every_template_and_asset():
    root = builtin_root()
    for name in TEMPLATES:
        assert root.joinpath(name).is_file(), name
    assert {"assets/wiki.css", "assets/search.js"} <= set(assets(None))


def test_a_compressed_asset_is_published_whole_and_packaged():
    import fnmatch

    shipped = assets(None)
    mermaid = shipped["assets/mermaid.min.js"]
    assert mermaid.startswith(b'"use strict";var ') and len(mermaid) > 3_000_000  # the bundle, whole
    assert not [name for name in shipped if name.endswith(".gz")]
    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert any(fnmatch.fnmatch("assets/mermaid.min.js.gz", pattern) for pattern in patterns["pipeline.theme"])


def test_templates_autoescape_content():
    env = environment(None, "/")
    html = env.from_string("<p>{{ value }}</p>").render(value="<script>")
    assert html == "<p>&lt;script&gt;</p>"


def test_templates_read_a_dict_as_jinja_does():
    words = {"home": "Home", "items": "shadowed", "get": "shadowed"}
    source = "{{ t.home }} {{ t.items()|list|length }} {{ t.get('home') }} {{ t.get('none', '-') }} {{ t['items'] }}"
    plain = Environment(undefined=StrictUndefined, autoescape=True).from_string(source).render(t=words)
    assert environment(None, "/").from_string(source).render(t=words) == plain == "Home 3 Home - shadowed"
    with pytest.raises(UndefinedError, match="no attribute 'missing'"):
        environment(None, "/").from_string("{{ t.missing }}").render(t=words)

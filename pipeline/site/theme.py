"""The templates and assets a site is rendered with: the built-in theme, overridable per wiki.

The built-in theme is the top-level `templates/` folder, installed as the
package `pipeline.theme` (see pyproject.toml) and read with
importlib.resources, so it works from a checkout, an editable install and a
wheel alike. A wiki's `templates_dir` wins file by file, for templates and
for files under `assets/`.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from pathlib import Path

ASSETS = "assets"

# The words of the theme, per language; a language missing here reads English.
STRINGS = {
    "en": {
        "skip": "Skip to content", "search": "Search", "contents": "Contents", "references": "References",
        "further_reading": "Further reading", "what_links_here": "What links here", "categories": "Categories",
        "category": "Category", "languages": "Languages", "last_updated": "Last updated", "history": "History",
        "history_of": "History of", "all_pages": "All pages", "wanted": "Wanted pages", "recent": "Recent changes",
        "home": "Main page", "outdated": "This translation may be out of date.", "see_source": "See the source",
        "provenance": "Built from capture", "passes": "by passes", "not_found": "Page not found",
        "not_found_text": "There is no page at this address.", "redirecting": "Redirecting to",
        "wanted_text": "Pages that are linked to but do not exist yet.", "linked_from": "Linked from",
        "no_pages": "No pages yet.", "draft": "Draft: this page is not published in the sitemap.",
        "created": "created", "edited": "edited", "deleted": "deleted", "commit": "commit", "time": "Time",
        "hash": "Hash", "change": "Change", "page": "Page", "pages_in": "Pages in this category",
        "red_links": "red links", "navigation": "Navigation",
    },
    "es": {
        "skip": "Ir al contenido", "search": "Buscar", "contents": "Contenido", "references": "Referencias",
        "further_reading": "Lecturas adicionales", "what_links_here": "Lo que enlaza aquí",
        "categories": "Categorías", "category": "Categoría", "languages": "Idiomas",
        "last_updated": "Última actualización", "history": "Historial", "history_of": "Historial de",
        "all_pages": "Todas las páginas", "wanted": "Páginas requeridas", "recent": "Cambios recientes",
        "home": "Página principal", "outdated": "Esta traducción puede estar desactualizada.",
        "see_source": "Ver el original", "provenance": "Generada a partir de la captura", "passes": "por los pases",
        "not_found": "Página no encontrada", "not_found_text": "No hay ninguna página en esta dirección.",
        "redirecting": "Redirigiendo a", "wanted_text": "Páginas enlazadas que todavía no existen.",
        "linked_from": "Enlazada desde", "no_pages": "Todavía no hay páginas.",
        "draft": "Borrador: esta página no figura en el mapa del sitio.", "created": "creada",
        "edited": "editada", "deleted": "borrada", "commit": "commit", "time": "Hora", "hash": "Hash",
        "change": "Cambio", "page": "Página", "pages_in": "Páginas en esta categoría", "red_links": "enlaces rojos",
        "navigation": "Navegación",
    },
}  # fmt: skip


def strings(lang: str) -> dict[str, str]:
    base = lang.split("-")[0]
    return {**STRINGS["en"], **STRINGS.get(base, {})}


def builtin_root():
    """The built-in theme folder (a Traversable): the installed package, else the checkout's `templates/`."""
    try:
        root = importlib.resources.files("pipeline.theme")
        if root.joinpath("base.html").is_file():
            return root
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "templates"


def assets(templates_dir: Path | None) -> dict[str, bytes]:
    """`assets/...` path -> bytes: the built-in theme's assets, overridden and extended by the wiki's."""
    found = {}
    folder = builtin_root().joinpath(ASSETS)
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if file.is_file():
            found[f"{ASSETS}/{file.name}"] = file.read_bytes()
    own = Path(templates_dir) / ASSETS if templates_dir else None
    if own and own.is_dir():
        for file in sorted(own.rglob("*")):
            if file.is_file() and not any(part.startswith(".") for part in file.relative_to(own).parts):
                found[f"{ASSETS}/{file.relative_to(own).as_posix()}"] = file.read_bytes()
    return found


def theme_digest(templates_dir: Path | None) -> str:
    """A hash of every file of the built-in theme and of the wiki's templates folder."""
    digest = hashlib.sha256()
    folders = [builtin_root()] + ([Path(templates_dir)] if templates_dir and Path(templates_dir).is_dir() else [])
    for folder in folders:
        for name, data in _walk(folder, ""):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def _walk(folder, prefix: str):
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith((".", "__")):
            continue
        if entry.is_dir():
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.is_file():
            yield f"{prefix}{entry.name}", entry.read_bytes()

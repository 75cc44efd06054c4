"""The templates and assets a site is rendered with: the built-in theme, overridable per wiki.

The built-in theme is the top-level `templates/` folder, installed as the
package `pipeline.theme` (see pyproject.toml) and read with
importlib.resources, so it works from a checkout, an editable install and a
wheel alike. A wiki's `templates_dir` wins file by file, for templates and
for files under `assets/`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from pipeline.config import CONFIG_FILE
from pipeline.runtime.named_code import unknown_name

ASSETS = "assets"
SHIPPED_COMPRESSED = ".gz"  # a built-in asset `x.js.gz` is published as `x.js` (Mermaid, too big to keep plain)

# The words of the theme, per language; a language missing here reads English.
STRINGS = {
    "en": {
        "skip": "Skip to content", "search": "Search", "contents": "Contents", "references": "References",
        "further_reading": "Further reading", "what_links_here": "What links here", "categories": "Categories",
        "category": "Category", "languages": "Languages", "last_updated": "Last updated", "history": "History",
        "history_of": "History of", "all_pages": "All pages", "wanted": "Wanted pages", "recent": "Recent changes",
        "home": "Main page", "outdated": "This translation may be out of date.", "see_source": "See the source",
        "not_found": "Page not found",
        "not_found_text": "There is no page at this address.", "redirecting": "Redirecting to",
        "wanted_text": "Pages that are linked to but do not exist yet.", "linked_from": "Linked from",
        "no_pages": "No pages yet.", "draft": "Draft: this page is not published in the sitemap.",
        "created": "created", "edited": "edited", "deleted": "deleted", "commit": "Commit", "time": "Time",
        "hash": "Hash", "change": "Change", "page": "Page", "pages_in": "Pages in this category",
        "red_links": "red links", "navigation": "Navigation",
        "tags": "Tags", "tag": "Tag", "edit_page": "Edit this page",
        "renamed": "renamed", "renamed_from": "from", "author": "Author", "message": "Message", "diff": "Changes",
        "lines_not_shown": "more lines not shown", "translation_status": "Translation status",
        "shallow_history": "This site was built from a shallow clone: older commits are not shown.",
        "translation_status_text": "Articles of the other languages this language lacks, and how its translations compare with their source.",
        "outdated_translations": "Outdated", "missing_translations": "Missing", "current_translations": "Up to date",
        "source": "Source", "behind": "Behind", "changes_behind": "changes", "days_behind": "days",
        "menu": "Menu", "close_menu": "Close the menu", "breadcrumbs": "Breadcrumbs",
        "previous_page": "Previous", "next_page": "Next", "section_pages": "All pages of this section",
        "language_name": "English", "not_translated": "not translated", "theme_dark": "Dark theme",
        "page_information": "Page information", "language": "Language", "capture": "Capture",
        "source_file": "Source file", "pass_versions": "Passes", "search_close": "Close",
        "search_hint": "↑ ↓ to choose, Enter to open, Esc to close", "search_clear": "Clear",
        "search_more": "Load more results", "search_none": "No results for [SEARCH_TERM]",
        "search_one": "[COUNT] result for [SEARCH_TERM]", "search_many": "[COUNT] results for [SEARCH_TERM]",
        "search_searching": "Searching for [SEARCH_TERM]…", "copy_label": "Copy", "copy_code": "Copy code",
        "copied": "Copied",
    },
    "es": {
        "skip": "Ir al contenido", "search": "Buscar", "contents": "Contenido", "references": "Referencias",
        "further_reading": "Lecturas adicionales", "what_links_here": "Lo que enlaza aquí",
        "categories": "Categorías", "category": "Categoría", "languages": "Idiomas",
        "last_updated": "Última actualización", "history": "Historial", "history_of": "Historial de",
        "all_pages": "Todas las páginas", "wanted": "Páginas requeridas", "recent": "Cambios recientes",
        "home": "Página principal", "outdated": "Esta traducción puede estar desactualizada.",
        "see_source": "Ver el original",
        "not_found": "Página no encontrada", "not_found_text": "No hay ninguna página en esta dirección.",
        "redirecting": "Redirigiendo a", "wanted_text": "Páginas enlazadas que todavía no existen.",
        "linked_from": "Enlazada desde", "no_pages": "Todavía no hay páginas.",
        "draft": "Borrador: esta página no figura en el mapa del sitio.", "created": "creada",
        "edited": "editada", "deleted": "borrada", "commit": "Commit", "time": "Hora", "hash": "Hash",
        "change": "Cambio", "page": "Página", "pages_in": "Páginas en esta categoría", "red_links": "enlaces rojos",
        "navigation": "Navegación",
        "tags": "Etiquetas", "tag": "Etiqueta", "edit_page": "Editar esta página",
        "renamed": "renombrada", "renamed_from": "desde", "author": "Autor", "message": "Mensaje", "diff": "Cambios",
        "lines_not_shown": "líneas más sin mostrar", "translation_status": "Estado de las traducciones",
        "shallow_history": "Este sitio se generó desde un clon superficial: no se muestran los commits más antiguos.",
        "translation_status_text": "Artículos de los otros idiomas que faltan en este, y cómo se comparan sus traducciones con el original.",
        "outdated_translations": "Desactualizadas", "missing_translations": "Faltan", "current_translations": "Al día",
        "source": "Original", "behind": "Retraso", "changes_behind": "cambios", "days_behind": "días",
        "menu": "Menú", "close_menu": "Cerrar el menú", "breadcrumbs": "Ruta de navegación",
        "previous_page": "Anterior", "next_page": "Siguiente",
        "section_pages": "Todas las páginas de esta sección",
        "language_name": "Español", "not_translated": "sin traducción", "theme_dark": "Tema oscuro",
        "page_information": "Información de la página", "language": "Idioma", "capture": "Captura",
        "source_file": "Archivo fuente", "pass_versions": "Pases", "search_close": "Cerrar",
        "search_hint": "↑ ↓ para elegir, Intro para abrir, Esc para cerrar", "search_clear": "Borrar",
        "search_more": "Ver más resultados", "search_none": "No hay resultados para [SEARCH_TERM]",
        "search_one": "[COUNT] resultado para [SEARCH_TERM]", "search_many": "[COUNT] resultados para [SEARCH_TERM]",
        "search_searching": "Buscando [SEARCH_TERM]…", "copy_label": "Copiar", "copy_code": "Copiar el código",
        "copied": "Copiado",
    },
}  # fmt: skip


def strings(lang: str, overrides: Mapping[str, Mapping[str, str]] = MappingProxyType({})) -> dict[str, str]:
    """The theme's words in `lang`: English, under the built-in words of its base language (`pt` of `pt-BR`),
    under `overrides` (wiki.yaml's `ui_strings`) for English, the base language and `lang` itself."""
    base = lang.split("-")[0]
    found = dict(STRINGS["en"])
    for words in (overrides.get("en", {}), STRINGS.get(base, {}), overrides.get(base, {}), overrides.get(lang, {})):
        found.update(words)
    return found


def language_name(lang: str, overrides: Mapping[str, Mapping[str, str]] = MappingProxyType({})) -> str:
    """What a language calls itself: wiki.yaml's or the theme's `language_name`, else the Unicode CLDR's (Babel) with
    a capital, as language lists show it (`de` -> Deutsch, `pt-br` -> Português (Brasil)), else its tag: never
    English's name for another language."""
    base = lang.split("-")[0]
    for words in (overrides.get(lang, {}), overrides.get(base, {}), STRINGS.get(base, {})):
        if words.get("language_name"):
            return words["language_name"]
    return _autonym(lang) or lang


@functools.lru_cache(maxsize=256)
def _autonym(lang: str) -> str | None:
    from babel import Locale, UnknownLocaleError  # only for a language the theme and wiki.yaml do not name

    try:
        locale = Locale.parse(lang, sep="-")
    except (ValueError, TypeError, UnknownLocaleError):
        return None
    name = locale.get_display_name(locale)
    return name[:1].upper() + name[1:] if name else None


def check_ui_strings(overrides: Mapping[str, Mapping[str, str]]) -> None:
    """Refuse a key of wiki.yaml's `ui_strings` the theme has no word for (config.py checked the shape)."""
    for lang, words in overrides.items():
        for key in words:
            if key not in STRINGS["en"]:
                raise unknown_name(key, list(STRINGS["en"]), f"{CONFIG_FILE}: ui_strings: {lang}: unknown key")


def builtin_root():
    """The built-in theme folder (a Traversable): the checkout's `templates/` beside this code when there is one
    (another checkout run with PYTHONPATH renders with its own theme, not the installed one's), else the
    installed package's."""
    checkout = Path(__file__).resolve().parents[2] / "templates"
    if (checkout / "base.html").is_file():
        return checkout
    try:
        root = importlib.resources.files("pipeline.theme")
        if root.joinpath("base.html").is_file():
            return root
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "templates"


def assets(templates_dir: Path | None) -> dict[str, bytes]:
    """`assets/...` path -> bytes: the built-in theme's assets, overridden and extended by the wiki's."""
    import gzip  # here: only a build that writes the theme's files needs it, and every build imports this module

    found = {}
    folder = builtin_root().joinpath(ASSETS)
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if file.is_file() and file.name.endswith(SHIPPED_COMPRESSED):  # a big vendored file, kept small in the package
            found[f"{ASSETS}/{file.name.removesuffix(SHIPPED_COMPRESSED)}"] = gzip.decompress(file.read_bytes())
        elif file.is_file():
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

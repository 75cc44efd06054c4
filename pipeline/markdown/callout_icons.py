"""The callout types: Obsidian's types and aliases, GitHub's alerts, and an inline SVG icon for each.

`KINDS` maps every name a writer may use (lower case) to the kind it looks
like; GitHub's five alerts are names of it too. An unknown name looks like
`note`. The icons are drawn here (24-unit stroked outlines, `currentColor`),
inline in the page: no file to fetch, and hidden from screen readers.
"""

from __future__ import annotations

DEFAULT_KIND = "note"
ALIASES = {
    "note": (),
    "abstract": ("summary", "tldr"),
    "info": (),
    "todo": (),
    "tip": ("hint", "important"),
    "success": ("check", "done"),
    "question": ("help", "faq"),
    "warning": ("caution", "attention"),
    "failure": ("fail", "missing"),
    "danger": ("error",),
    "bug": (),
    "example": (),
    "quote": ("cite",),
}
KINDS = {name: kind for kind, aliases in ALIASES.items() for name in (kind, *aliases)}

PATHS = {
    "note": '<path d="M4 20h4L19 9l-4-4L4 16z"/><path d="M13 7l4 4"/>',
    "abstract": '<rect x="5" y="4" width="14" height="17" rx="2"/><path d="M9 9h6M9 13h6M9 17h4"/>',
    "info": '<circle cx="12" cy="12" r="9"/><path d="M12 11v6M12 7.5v.5"/>',
    "todo": '<circle cx="12" cy="12" r="9"/><path d="M8 12l3 3 5-6"/>',
    "tip": '<path d="M9 18h6M10 21h4M12 3a6 6 0 0 0-4 10.5c.8.8 1 1.6 1 2.5h6c0-.9.2-1.7 1-2.5A6 6 0 0 0 12 3z"/>',
    "success": '<path d="M4 12l5 5L20 6"/>',
    "question": '<circle cx="12" cy="12" r="9"/><path d="M9.5 9.5a2.5 2.5 0 1 1 3.4 2.3c-.6.3-.9.8-.9 1.5M12 17v.5"/>',
    "warning": '<path d="M12 3L2 20h20z"/><path d="M12 10v4M12 17v.5"/>',
    "failure": '<path d="M6 6l12 12M18 6L6 18"/>',
    "danger": '<path d="M13 2L4 14h7l-1 8 9-12h-7z"/>',
    "bug": '<rect x="7" y="7" width="10" height="13" rx="5"/><path d="M12 11v9M3 13h4M17 13h4M5 8l3 2M19 8l-3 2'
           'M5 19l3-2M19 19l-3-2M9 4l1.5 3M15 4l-1.5 3"/>',
    "example": '<path d="M10 6h10M10 12h10M10 18h10M4 6l1 1 2-2M4 12l1 1 2-2M4 18l1 1 2-2"/>',
    "quote": '<path d="M4 17c2.5 0 4-1.5 4-4V7H4v6h4M14 17c2.5 0 4-1.5 4-4V7h-4v6h4"/>',
}
SVG = ('<svg class="callout-icon" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" '
       'stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">{}</svg>')
ICONS = {kind: SVG.format(paths) for kind, paths in PATHS.items()}


def kind_of(name: str) -> str:
    """The kind a callout's type name (any case) looks like."""
    return KINDS.get(name.lower(), DEFAULT_KIND)

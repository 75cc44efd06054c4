"""What the preview server may answer: which files it sends, and to which host names.

- Files: a URL path is percent-decoded, stripped of the site's base path,
  joined to the output folder and resolved with `os.path.realpath`. Only a
  regular file whose real path is inside the real output folder, and not
  inside the content or the state folder wherever those are, is sent: an
  output folder that contains the state folder would otherwise serve the
  whole database, and one that is the content folder its sources.
- Host names: any web page can make a browser send requests to a name it
  controls whose DNS answer it then switches to 127.0.0.1 (DNS rebinding),
  and read the preview's answers. A browser always sends the name it used
  in the Host header, so only names that no other site can point at this
  server are answered: `localhost`, IP addresses (an address is not a
  name: no DNS answer can change where it leads; `--host 0.0.0.0` is
  reached through one) and the exact host the server was bound to.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote

# host or [IPv6 literal], then an optional port: the shape of a Host header (RFC 9110)
HOST_HEADER = re.compile(r"(?:\[(?P<literal>[0-9A-Fa-f:.]+)\]|(?P<name>[^\s:\[\]/@]+))(?::[0-9]{0,5})?")


def site_path(url_path: str, base_path: str) -> str | None:
    """The decoded path below the site root that a URL path names, or None when it is outside `base_path`."""
    path = unquote(url_path, errors="strict") if "%" in url_path else url_path
    if not path.startswith(base_path) or "\x00" in path or "\\" in path:
        return None
    return path[len(base_path) :]


def inside(path: str, folder: str) -> bool:
    """Whether the real path `path` is `folder` or below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def locate(root: Path, rel: str, refused: Sequence[Path] = ()) -> tuple[Path | None, bool]:
    """(the real file `rel` names inside `root` and outside every `refused` folder, or None;
    whether `rel` named a folder).

    Real paths are taken at each request: a rebuild may replace any of these folders.
    """
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, rel.lstrip("/")))
    folder = os.path.isdir(target)
    if folder:
        target = os.path.realpath(os.path.join(target, "index.html"))
    allowed = target != real_root and inside(target, real_root)
    allowed = allowed and not any(inside(target, os.path.realpath(other)) for other in refused)
    return (Path(target) if allowed and os.path.isfile(target) else None), folder


def host_allowed(header: str | None, bound_host: str) -> bool:
    """Whether a request's Host header names this server in a way no other site can (see the module's doc).

    A request without one is not from a browser (a browser always sends it), so not a rebinding attack.
    """
    if header is None:
        return True
    shape = HOST_HEADER.fullmatch(header.strip())
    if shape is None:
        return False
    name = (shape["literal"] or shape["name"]).lower()
    return name == "localhost" or is_address(name) or name == bound_host.strip("[]").lower()


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True

"""`pipeline suggest [PATH...]`: print the unlinked-mention suggestions as one unified diff.

The diff is relative to the content folder (`cd content && git apply`); the
content itself is never written. PATHs (files or folders, relative to the
content folder or to the current directory) narrow it down.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline.build import build
from pipeline.commands.options import add_state, add_workers, config_from
from pipeline.errors import UserError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "suggest", help="print proposed links for unlinked mentions as a diff for `git apply`",
        description="Run the build's passes and print the mentions pass's proposals as a unified diff "
                    "(paths relative to the content folder). Nothing in the content folder is written.",
    )  # fmt: skip
    parser.add_argument("paths", nargs="*", metavar="PATH", help="only these files or folders")
    add_state(parser)
    add_workers(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    wanted = [content_relative(Path(p), config.content_dir) for p in args.paths]
    wiki = build(config, workers=args.workers, reuse=False).process.wiki
    results = wiki.results.get("mentions", {})
    chosen = [a for a in sorted(wiki.articles, key=lambda a: a.path) if _chosen(a.path, wanted)]
    if wanted and not chosen:
        raise UserError(f"no article under {', '.join(args.paths)}")
    diffs, count, missing = [], 0, []
    for article in chosen:
        output = results.get(article.capture_id)
        if output is None:
            missing.append(article.path)
        elif output["edit"]:
            diffs.append(output["edit"]["diff"])
            count += len(output["suggestions"])
    sys.stdout.write("".join(diffs))
    for path in missing:
        print(f"pipeline suggest: {path}: the mentions pass has no result (see `pipeline jobs list`)", file=sys.stderr)
    print(f"{count} suggestion(s) in {len(diffs)} file(s)", file=sys.stderr)
    return 1 if missing else 0


def content_relative(path: Path, content_dir: Path) -> str:
    """`path` as given relative to the content folder, or else resolved against the current directory."""
    root = content_dir.resolve()
    for candidate in ((content_dir / path).resolve(), path.resolve()):
        if (candidate == root or root in candidate.parents) and candidate.exists():
            return candidate.relative_to(root).as_posix()
    raise UserError(f"{path}: not a file or folder of the content folder {content_dir}")


def _chosen(path: str, wanted: list[str]) -> bool:
    return not wanted or any(w == "." or path == w or path.startswith(w.rstrip("/") + "/") for w in wanted)


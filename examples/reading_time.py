"""reading_time: an example custom pass that estimates minutes of reading per article.

Register it in wiki.yaml (`passes: [examples/reading_time.py]`) or from an
installed package (entry point group `pipeline.passes`). It reads only its
own capture, so its fingerprint is the capture hash: editing one article
re-runs it for that article only.
"""

from pipeline.passes.base import diagnostic

NAME = "reading_time"
VERSION = 1
CONTRACT_VERSION = 1
CONTRACT = {
    "type": "object",
    "required": ["words", "minutes", "diagnostics"],
    "properties": {
        "words": {"type": "integer", "minimum": 0},
        "minutes": {"type": "integer", "minimum": 1},
        "diagnostics": {"type": "array"},
    },
}
WORDS_PER_MINUTE = 200
LONG_READ = 20  # minutes


def run(article, inputs):
    words = len(article.body.split())
    minutes = max(1, round(words / WORDS_PER_MINUTE))
    diagnostics = []
    if minutes > LONG_READ:
        diagnostics.append(diagnostic("long-read", f"{minutes} minutes to read; consider splitting", severity="info"))
    return {"words": words, "minutes": minutes, "diagnostics": diagnostics}

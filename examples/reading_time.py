"""reading_time: an example custom pass that estimates minutes of reading per article.

Register it in wiki.yaml (`passes: [examples/reading_time.py]`) or from an
installed package (entry point group `pipeline.passes`). It reads only its
own capture, so editing one article re-runs it for that article only. It
owns two options, set where it is registered:

    passes:
      - examples/reading_time.py: {words_per_minute: 250, long_read: 15}

Changing one re-runs this pass for every article, and nothing else.
"""

from dataclasses import dataclass

from pipeline.passes.base import diagnostic
from pipeline.passes.contract import Pass


@dataclass(frozen=True)
class Options:
    words_per_minute: int = 200
    long_read: int = 20  # minutes: a longer article gets a `long-read` suggestion


CONTRACT = {
    "type": "object",
    "required": ["words", "minutes", "diagnostics"],
    "properties": {
        "words": {"type": "integer", "minimum": 0},
        "minutes": {"type": "integer", "minimum": 1},
        "diagnostics": {"type": "array"},
    },
}


def run(article, inputs):
    options = inputs["pass_options"]
    words = len(article.body.split())
    minutes = max(1, round(words / max(1, options.words_per_minute)))
    diagnostics = []
    if minutes > options.long_read:
        diagnostics.append(diagnostic("long-read", f"{minutes} minutes to read; consider splitting", severity="info"))
    return {"words": words, "minutes": minutes, "diagnostics": diagnostics}


PASS = Pass(name="reading_time", version=1, contract=CONTRACT, run=run, options=Options)

"""pipeline: turn a folder of Markdown wiki articles into a published documentation wiki."""

__version__ = "0.1.0"

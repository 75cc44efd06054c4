"""The built-in theme of `pipeline` (Jinja2 templates and assets), installed as `pipeline.theme`."""

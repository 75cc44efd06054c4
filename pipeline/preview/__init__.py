"""The preview server of `pipeline serve`: what it may answer, live reload, and rebuilding on change."""

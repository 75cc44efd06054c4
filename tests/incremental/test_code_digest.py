"""The digest of the code that made something (pipeline/incremental/code_digest.py)."""

from pipeline.incremental import code_digest


def test_the_code_digest_reads_the_package_once_and_a_pass_from_elsewhere_too(tmp_path, monkeypatch):
    import importlib.util
    import sys

    monkeypatch.setattr(code_digest, "_CODE", {})
    package = code_digest.code_digest()
    assert code_digest.code_digest("pipeline.passes.html") == code_digest.code_digest("pipeline.site.page_digests") == package
    digests = []
    for source in ("VALUE = 1\n", "VALUE = 2\n"):
        (tmp_path / "own_pass.py").write_text(source)
        spec = importlib.util.spec_from_file_location("own_pass", tmp_path / "own_pass.py")
        monkeypatch.setitem(sys.modules, "own_pass", importlib.util.module_from_spec(spec))
        code_digest._CODE.pop("own_pass", None)
        digests.append(code_digest.code_digest("own_pass"))
    assert package not in digests and digests[0] != digests[1]

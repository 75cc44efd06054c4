"""The digest of the code that made something (pipeline/code.py)."""

from pipeline import code


def test_the_code_digest_reads_the_package_once_and_a_pass_from_elsewhere_too(tmp_path, monkeypatch):
    import importlib.util
    import sys

    monkeypatch.setattr(code, "_CODE", {})
    package = code.code_digest()
    assert code.code_digest("pipeline.passes.html") == code.code_digest("pipeline.site.state") == package
    digests = []
    for source in ("VALUE = 1\n", "VALUE = 2\n"):
        (tmp_path / "own_pass.py").write_text(source)
        spec = importlib.util.spec_from_file_location("own_pass", tmp_path / "own_pass.py")
        monkeypatch.setitem(sys.modules, "own_pass", importlib.util.module_from_spec(spec))
        code._CODE.pop("own_pass", None)
        digests.append(code.code_digest("own_pass"))
    assert package not in digests and digests[0] != digests[1]

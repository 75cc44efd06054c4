"""jsonio: compact JSON, as text or UTF-8 bytes, the same either way; files written whole."""

import json

import pytest

from pipeline.runtime import jsonio


@pytest.mark.parametrize(
    "value",
    [
        {"b": ["é", "日本", "🙂"], "a": 1},
        {2: "keys orjson refuses", 1: None},  # the standard library writes it
        [2**70, "an integer beyond 64 bits"],
    ],
)
def test_bytes_are_the_text_encoded_sorted_or_not(value):
    for sort_keys in (False, True):
        text = jsonio.dumps(value, sort_keys=sort_keys)
        assert jsonio.encode(value, sort_keys=sort_keys) == text.encode()
        assert jsonio.compact(jsonio.encode(value, sort_keys=sort_keys)) == text.encode()
    assert jsonio.dumps(value, sort_keys=True) == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                                             ensure_ascii=False)  # fmt: skip


def test_a_file_is_saved_as_the_text_encoded(tmp_path):
    value = {"names": ["Ünïcode", "🙂"], 3: "a key orjson refuses"}
    jsonio.save(tmp_path / "record.json", value)
    assert (tmp_path / "record.json").read_bytes() == jsonio.dumps(value).encode()
    assert not (tmp_path / "record.tmp").exists()

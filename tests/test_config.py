"""wiki.yaml: every problem is one line naming the file (and line, or option), never a traceback."""

from __future__ import annotations

import pytest

from pipeline.config import is_language_tag, load_config
from pipeline.errors import ConfigError
from tests.runtime.test_safe_yaml import alias_bomb


def config_error(tmp_path, text: str | bytes) -> str:
    path = tmp_path / "wiki.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}") and "\n" not in message
    return message


def test_invalid_yaml_names_the_file_and_line(tmp_path):
    message = config_error(tmp_path, "site_name: Wiki\nbase_url: [unclosed\nstrict: true\n")
    assert message.startswith(f"{tmp_path / 'wiki.yaml'}:3: YAML does not parse:")
    assert "<unicode string>" not in message


def test_wiki_yaml_is_loaded_within_the_yaml_limits(tmp_path):
    assert "more than 10,000 values" in config_error(tmp_path, alias_bomb(9))
    assert "is not a valid timestamp" in config_error(tmp_path, "site_name: 2024-13-45\n")


def test_an_unknown_option_suggests_the_nearest_one(tmp_path):
    typo = config_error(tmp_path, "site_nmae: My wiki\n")
    assert typo.endswith("unknown option(s): site_nmae (did you mean site_name?)")
    nested = config_error(tmp_path, "jobs:\n  max_attempt: 3\n")
    assert nested.endswith("jobs: unknown option(s): max_attempt (did you mean max_attempts?)")
    assert config_error(tmp_path, "zzz: 1\n").endswith("unknown option(s): zzz")


def test_a_file_that_cannot_be_read_is_one_line(tmp_path):
    assert "not UTF-8" in config_error(tmp_path, b"site_name: caf\xe9\n")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(folder)


@pytest.mark.parametrize(
    "text, named",
    [
        ("default_language: ../../../tmp/x\n", "default_language: '../../../tmp/x' is not a language tag"),
        ('default_language: "javascript://x"\n', "default_language: 'javascript://x' is not a language tag"),
        ("languages: [en, 'e s']\n", "languages: 'e s' is not a language tag"),
    ],
)
def test_languages_must_be_language_tags(tmp_path, text, named):
    assert named in config_error(tmp_path, text)


def test_language_tags_are_kept_in_lower_case(tmp_path):
    (tmp_path / "wiki.yaml").write_text("default_language: pt-BR\nlanguages: [pt-BR, EN]\n")
    config = load_config(tmp_path / "wiki.yaml")
    assert (config.default_language, config.languages) == ("pt-br", ["pt-br", "en"])


@pytest.mark.parametrize("tag", ["en", "pt-BR", "zh-Hant-TW", "es-419", "de-CH-1901", "en-x-private"])
def test_language_tags_of_bcp47_shape(tag):
    assert is_language_tag(tag)


TOO_LONG = "en-" + "-".join(["abcdefgh"] * 4)  # a tag's shape, past 35 characters


@pytest.mark.parametrize("value", ["e", "english", "../x", "en_US", "en-", "-en", "en us", "javascript:x", "", TOO_LONG])
def test_what_is_not_a_language_tag(value):
    assert not is_language_tag(value)


@pytest.mark.parametrize(
    "text, named",
    [
        ("ui_strings: [home]\n", "ui_strings: expected dict"),
        ("ui_strings: {'e s': {home: Start}}\n", "ui_strings: 'e s' is not a language tag"),
        ("ui_strings: {es: [home]}\n", "ui_strings: es: expected a mapping of word keys to text"),
        ("ui_strings: {es: {home: 3}}\n", "ui_strings: es: home: expected text"),
    ],
)
def test_ui_strings_map_language_tags_to_words(tmp_path, text, named):
    assert named in config_error(tmp_path, text)


def test_ui_strings_languages_are_kept_in_lower_case(tmp_path):
    (tmp_path / "wiki.yaml").write_text("ui_strings:\n  pt-BR: {home: Início}\n  es: {search: Busca}\n")
    assert load_config(tmp_path / "wiki.yaml").ui_strings == {"pt-br": {"home": "Início"}, "es": {"search": "Busca"}}


def test_a_templates_dir_that_is_not_a_folder_is_an_error_naming_it(tmp_path):
    message = config_error(tmp_path, "templates_dir: theme\n")  # a typo would leave the built-in theme, unseen
    assert message == f"{tmp_path / 'wiki.yaml'}: templates_dir: {tmp_path / 'theme'} is not a folder"
    (tmp_path / "theme").mkdir()
    assert load_config(tmp_path / "wiki.yaml").templates_dir == tmp_path / "theme"


def test_workers_below_zero_is_an_error(tmp_path):
    assert config_error(tmp_path, "workers: -2\n").endswith("workers: expected 0 (one per CPU) or more, got -2")

"""The benchmarks' Obsidian-style vault (benchmarks/vault.py), small: it has what it claims, is the same for a
seed, and the tool builds it with no broken link but those the vault means to have."""

import re
import statistics
import subprocess
import sys
from urllib.parse import unquote

import pytest

from conftest import REPO, folder_hashes

sys.path.insert(0, str(REPO / "benchmarks"))

import generate  # noqa: E402
import run  # noqa: E402
import vault  # noqa: E402

pytestmark = pytest.mark.slow  # a whole vault built: outside the fast tier

SHAPE = vault.VaultShape(notes=60)
WIKILINK = re.compile(r"(!?)\[\[([^\]|#]+)([^\]|]*)(?:\|[^\]]*)?\]\]")  # embed?, target, #fragment
MARKDOWN_LINK = re.compile(r"(?<![!\[])\[[^\]]+\]\((\S+?\.md)\)")  # a destination may hold "(draft)"
NON_LATIN = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0980-\u09ff\u0e00-\u0e7f\u4e00-\u9fff]")
EMOJI = re.compile(r"[\U0001F300-\U0001FAFF]")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("vault")
    files = vault.generate_vault(root / "vault", SHAPE)
    return root, files


def _notes(root):
    return {path: path.read_text(encoding="utf-8") for path in sorted((root / "vault").rglob("*.md"))}


def _references(texts):
    """(embed?, target, fragment) of every wikilink, and the target of every Markdown link, decoded."""
    wikilinks = [found for text in texts for found in WIKILINK.findall(text)]
    return wikilinks, [unquote(target) for text in texts for target in MARKDOWN_LINK.findall(text)]


def test_the_vault_has_what_it_claims(written):
    root, files = written
    notes, attachments = _notes(root), sorted((root / "vault" / "attachments").iterdir())
    assert files == len(notes) + len(attachments)
    parts = [path.relative_to(root / "vault").parts for path in notes]
    assert {part[0] for part in parts} == {"en", "es", "de"}  # language folders
    assert sum(part[0] == "en" for part in parts) == 60 and 10 <= sum(part[0] != "en" for part in parts) <= 60
    assert {len(part) for part in parts} >= {3, 4, 5}  # one to three folders inside a language's
    names = [part[-1].removesuffix(".md") for part in parts]
    assert any(" " in name for name in names) and any("(" in name for name in names)
    assert any(EMOJI.search(name) for name in names) and any(NON_LATIN.search(name) for name in names)
    assert any(re.fullmatch(r"[A-Z][a-z]+", name) for name in names)  # one-word titles
    words = sorted(len(text.split()) for text in notes.values())
    assert words[-1] > 5 * statistics.median(words)  # long-tailed: a few notes far longer than most
    texts = list(notes.values())
    wikilinks, markdown = _references(texts)
    assert 6 <= (len(wikilinks) + len(markdown)) / len(notes) <= 7
    embeds = [(target, fragment) for bang, target, fragment in wikilinks if bang]
    assert 0.04 <= len(embeds) / len(wikilinks) <= 0.2
    assert any(fragment.startswith("#^") for _, fragment in embeds)  # of a block
    assert any(fragment.startswith("#") and not fragment.startswith("#^") for _, fragment in embeds)  # a section
    assert any(target.endswith(".png") for target, _ in embeds)  # an image
    assert any(not fragment and "." not in target[-5:] for target, fragment in embeds)  # a whole note
    assert sum("> [!" in text for text in texts) >= 5  # callouts
    assert sum("\ntags: [" in text for text in texts) >= 5 and any(re.search(r" #[a-z]", text) for text in texts)
    assert sum("\naliases: [" in text for text in texts) >= 3
    assert any(re.search(r" \^[0-9a-f]{6}$", text, re.M) for text in texts)  # block ids
    assert {path.suffix for path in attachments} == {".png", ".svg", ".pdf"}
    assert all(path.read_bytes()[:4] in (b"\x89PNG", b"%PDF", b"<svg") for path in attachments)


def test_translations_share_their_permalink_across_language_folders(written):
    root, _ = written
    keys = {}
    for path, text in _notes(root).items():
        found = re.search(r"^permalink: (.+)$", text, re.M)
        if found:
            keys.setdefault(found.group(1), set()).add(path.relative_to(root / "vault").parts[0])
    assert keys and all("en" in languages and len(languages) > 1 for languages in keys.values())


def test_the_vault_is_the_same_for_a_seed_and_another_for_another_seed(tmp_path):
    generate.main([str(tmp_path / "a"), "--profile", "vault", "--articles", "20"])
    vault.generate_vault(tmp_path / "b", vault.VaultShape(notes=20))
    vault.generate_vault(tmp_path / "c", vault.VaultShape(notes=20, seed=2))
    assert folder_hashes(tmp_path / "a") == folder_hashes(tmp_path / "b") != folder_hashes(tmp_path / "c")


def _meant_broken(root, texts) -> int:
    """How many links name a file no one wrote (the vault's `broken` share), found by file name as Obsidian does."""
    files = {path.name.lower() for path in (root / "vault").rglob("*")}
    wikilinks, markdown = _references(texts)
    targets = [target.rsplit("/", 1)[-1] for _, target, _ in wikilinks] + markdown
    return sum(f"{target}.md".lower() not in files and target.lower() not in files for target in targets)


def test_the_tool_builds_it_with_no_broken_link_but_those_meant(written):
    root, _ = written
    (root / "wiki.yaml").write_text(f"search: false\n{vault.settings(SHAPE)}")
    command = [sys.executable, "-m", "pipeline", "build", "--content", str(root / "vault"), "--state",
               str(root / "state"), "--out", str(root / "site"), "--workers", "1"]  # fmt: skip
    built = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    output = built.stdout + built.stderr
    assert built.returncode == 0, output[-3000:]
    assert "0 error(s)" in output and " 0 failed" in output
    texts = list(_notes(root).values())
    meant = _meant_broken(root, texts)
    wikilinks, markdown = _references(texts)
    assert 0 < meant <= 0.06 * (len(wikilinks) + len(markdown))
    assert output.count("broken-link") == meant, output[-3000:]
    for code in ("broken-anchor", "missing-attachment", "missing-pair", "one-way-pair", "conflicting-pair"):
        assert code not in output, code
    site = root / "site"
    assert (site / "index.html").is_file() and (site / "es").is_dir() and (site / "de").is_dir()
    assert not (site / "en").exists()  # the default language's folder is the site's root
    assert (site / "attachments" / vault.attachment_name(0)).is_file()


def test_hugo_and_mkdocs_get_every_note_and_attachment(written, tmp_path):
    root, _ = written
    notes = sorted(str(path.relative_to(root / "vault")) for path in (root / "vault").rglob("*.md"))
    vault.hugo_tree(root / "vault", tmp_path / "hugo", SHAPE)
    vault.mkdocs_tree(root / "vault", tmp_path / "mkdocs")
    for content in (tmp_path / "hugo" / "content", tmp_path / "mkdocs" / "docs"):
        assert sorted(str(p.relative_to(content)) for p in content.rglob("*.md") if p.name != "index.md") == notes
    assert 'contentDir = "content/es"' in (tmp_path / "hugo" / "hugo.toml").read_text()
    name = vault.attachment_name(1)
    assert (tmp_path / "hugo" / "static" / "attachments" / name).is_file()
    assert (tmp_path / "mkdocs" / "docs" / "attachments" / name).is_file()


def test_a_title_is_set_in_the_frontmatter_added_when_a_note_has_none():
    once = generate.retitled("Some text.\n", "New")
    assert once == '---\ntitle: "New"\n---\n\nSome text.\n'
    assert generate.retitled(once, "Newer") == '---\ntitle: "Newer"\n---\n\nSome text.\n'
    assert generate.retitled("---\ntags: [a]\n---\n\nText\n", "T") == '---\ntitle: "T"\ntags: [a]\n---\n\nText\n'


def test_runner_times_every_scenario_on_the_vault(tmp_path, capsys):
    # 38 notes: note 7 (the one edited) does not link to note 11 before edit-link does (a hub may: at 40 it does).
    assert vault.link_to(11, vault.VaultShape(notes=38))[:-2] not in vault.note_text(7, vault.VaultShape(notes=38))
    (tool,) = run.run_size(38, tmp_path, hugo=False, mkdocs=False, profile="vault")
    assert "links: obsidian" in (tmp_path / "vault-n38" / "wiki.yaml").read_text()
    results = tool.results
    assert list(results) == list(run.SCENARIOS)
    assert results["cold"].passes_run > 0 and results["cold"].pages > 38
    assert results["no-change"].passes_run == 0 and results["no-change"].pages == 0
    assert 0 < results["edit-body"].passes_run < results["cold"].passes_run
    assert results["edit-link"].pages > results["edit-body"].pages  # the linked note's "What links here" too
    assert results["edit-title"].passes_run >= results["edit-body"].passes_run
    assert results["add-article"].pages >= 1
    # The emptied output folder put back from the state folder: nothing changed since, nothing to write.
    assert results["ci"].passes_run == 0 and results["ci"].pages == 0 and (tool.out / "index.html").is_file()
    capsys.readouterr()
    run.report([tool])
    out = capsys.readouterr().out
    assert "cpu/wall" in out.splitlines()[0]
    cold = next(line for line in out.splitlines() if line.startswith("pipeline   cold"))
    wall, cpu, utilisation = (float(value) for value in cold.split()[2:5])
    assert utilisation == pytest.approx(cpu / wall, abs=0.05)

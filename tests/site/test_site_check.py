"""The look for the last site's files a command line starts before anything else (`site.look_ahead`), and how a
build goes on from it (`SiteCheck`): only while the last render's record is as it was when the look was made."""

from __future__ import annotations

import dataclasses

from pipeline.cli import main
from pipeline.site import LastSite, SiteCheck, look_for_last_files
from tests.site.helpers import SITE, build_site


class Checker:
    """A forked checker whose look already ended with `looked`; the calls after it are made here."""

    def __init__(self, looked) -> None:
        self.looked, self.calls, self.call = looked, [], None

    def start(self, function, *args) -> None:
        self.calls.append(function.__name__)
        self.call = (function, args)

    def ready(self) -> bool:
        return True

    def result(self):
        (function, args), self.call = self.call, None
        return self.looked if function is look_for_last_files else function(*args)


def looking(config, looked) -> Checker:
    checker = Checker(looked)
    checker.start(look_for_last_files, config)
    return checker


def test_a_look_that_found_every_file_stands_while_nothing_wrote_the_site(make_wiki):
    config = dataclasses.replace(make_wiki(SITE), search=False)
    build_site(config)
    checker = looking(config, look_for_last_files(config))
    assert SiteCheck(config, checker, looked=True)() == LastSite(True)
    assert checker.calls == ["look_for_last_files"]  # nothing asked again


def test_a_look_made_before_another_build_wrote_the_site_is_made_again(make_wiki):
    config = dataclasses.replace(make_wiki(SITE), search=False)
    build_site(config)
    before = look_for_last_files(config)  # every file there
    (config.content_dir / "beta.md").write_text(SITE["beta.md"] + "\nMore.\n", encoding="utf-8")
    build_site(config)  # another build, while this one waited for the lock: its record is new
    (config.out_dir / "alpha" / "index.html").unlink()
    checker = looking(config, before)
    assert SiteCheck(config, checker, looked=True)() == LastSite(True, 1)  # looked at again: put back
    assert checker.calls == ["look_for_last_files", "site_intact"]
    assert (config.out_dir / "alpha" / "index.html").is_file()


def test_files_a_standing_look_found_missing_are_put_back_once_the_lock_is_held(make_wiki):
    config = dataclasses.replace(make_wiki(SITE), search=False)
    build_site(config)
    (config.out_dir / "alpha" / "index.html").unlink()
    looked = look_for_last_files(config)
    assert looked.missing == ["alpha/index.html"]
    checker = looking(config, looked)
    assert SiteCheck(config, checker, looked=True)() == LastSite(True, 1)
    assert (config.out_dir / "alpha" / "index.html").is_file()


def test_the_command_line_build_looks_ahead_and_puts_a_missing_page_back(make_wiki, tmp_path, monkeypatch, capsys):
    config = make_wiki(SITE)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wiki.yaml").write_text("search: false\n", encoding="utf-8")
    argv = ["build", "--content", str(config.content_dir), "--state", str(config.state_dir), "--out", str(config.out_dir)]
    assert main(argv) == 0
    assert main(argv) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("pages 0 written")  # nothing to do
    page = (config.out_dir / "beta" / "index.html").read_bytes()
    (config.out_dir / "beta" / "index.html").unlink()
    assert main(argv) == 0
    assert "(1 put back from the state folder)" in capsys.readouterr().out
    assert (config.out_dir / "beta" / "index.html").read_bytes() == page


def test_settle_takes_the_look_s_answer_at_once_so_missing_files_are_put_back_meanwhile(make_wiki):
    config = dataclasses.replace(make_wiki(SITE), search=False)
    build_site(config)
    (config.out_dir / "alpha" / "index.html").unlink()
    checker = Checker(look_for_last_files(config))
    checker.ready = lambda: False  # the look is still under way when the build starts
    checker.start(look_for_last_files, config)
    check = SiteCheck(config, checker, looked=True)
    assert checker.calls == ["look_for_last_files"]
    check.settle()  # the put back is asked for now, not when the answer is
    assert checker.calls == ["look_for_last_files", "site_intact"]
    assert check() == LastSite(True, 1) and (config.out_dir / "alpha" / "index.html").is_file()


def test_a_site_check_not_needed_answers_no_and_asks_nothing(make_wiki):
    config = make_wiki(SITE)
    checker = Checker(None)
    check = SiteCheck(config, checker, needed=False)
    check.settle()
    assert check() == LastSite(False) and checker.calls == []

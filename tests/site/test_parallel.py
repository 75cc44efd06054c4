"""Pages dealt to render processes: each page once, an article with its history page."""

from pipeline.site.parallel import CHUNK, share_of


def test_shares_cover_every_page_once_and_keep_pairs_together():
    planned = [f"{kind}{n}" for n in range(3 * CHUNK + 5) for kind in ("article", "history")] + ["home", "all"]
    shares = [share_of(planned, share, 3) for share in range(3)]
    assert sorted(page for share in shares for page in share) == sorted(planned)
    for share in shares:
        for page in share:
            if page.startswith("article"):
                assert f"history{page[7:]}" in share

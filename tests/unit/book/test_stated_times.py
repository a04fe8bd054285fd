"""The pages that tell a newcomer how long `make book` takes say what book/reference_times.yaml says (#43 item 2: the
README said 1 h 27 min with 55 of fine-tuning, the course page about 75 minutes with 45, the landing page nothing)."""
from __future__ import annotations

import re

import pytest
import yaml

from rmbook import book

PAGES = ("README.md", "book/intro.md", "book/course.md")


def _minutes() -> tuple[int, int]:
    seconds = yaml.safe_load((book.ROOT / "book" / "reference_times.yaml").read_text())["seconds"]
    return round(sum(seconds.values()) / 60), round(seconds["finetuning"] / 60)


@pytest.mark.parametrize("page", PAGES)
def test_each_page_states_the_chapters_time_and_the_fine_tuning_share_of_the_reference_times(page):
    total, finetuning = _minutes()
    text = " ".join((book.ROOT / page).read_text().split())
    stated = re.findall(r"about (?:\*\*)?(\d+) minutes(?:\*\*)? on 2 (?:CPU )?cores, (\d+) of them", text)
    assert stated, f"{page} does not say how long the chapters take"
    for said_total, said_ft in stated:
        assert abs(int(said_total) - total) <= 2 and abs(int(said_ft) - finetuning) <= 2, (page, stated, total)


def test_the_readme_s_first_screen_has_the_two_commands_one_build_time_and_a_real_chart():
    """#43 item 2: within the README's first 40 lines, a newcomer sees the commands, the time, and a picture that is
    a chart the book draws (a PNG file in the repository, not a link that may rot)."""
    head = "\n".join((book.ROOT / "README.md").read_text().splitlines()[:40])
    assert "make book" in head and "make test" in head
    assert len(re.findall(r"about\s+\*\*\d+ minutes\*\*", head)) == 1
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", head)
    assert pictures and all((book.ROOT / p).is_file() for p in pictures), pictures
    assert all((book.ROOT / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pictures)
    # #42: the value card's command, with a picture of a card
    assert "make card MODEL=" in head and "book/_static/readme/card.png" in pictures

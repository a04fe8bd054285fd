"""The pages that tell a newcomer how long `make book` takes say what book/reference_times.yaml says (#43 item 2: the
README said 1 h 27 min with 55 of fine-tuning, the course page about 75 minutes with 45, the landing page nothing)."""
from __future__ import annotations

import re

import pytest
import yaml

from rmlib import book

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

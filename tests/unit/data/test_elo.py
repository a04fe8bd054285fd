"""rmlib.data.elo on the mirror: EloEverything long and wide, spot values from the raw files."""
from __future__ import annotations

import csv

import pytest

from rmlib.data.paper_rms import PAPER_RMS
import rmlib.data as D


pytestmark = pytest.mark.usefixtures("data_dir")


def _raw_csv(data_dir, rel, encoding="utf-8"):
    with open(data_dir / rel, newline="", encoding=encoding) as fh:
        return list(csv.DictReader(fh))


def test_elo_long_and_wide(data_dir):
    long = D.load_elo()
    assert list(long.columns) == ["item", "prompt_key", "prompt", "model", "reward", "elo_score", "elo_rank", "elo_matches"]
    assert len(long) == 7530 * 3 * 10
    assert long.notna().all().all()
    assert long.groupby("prompt_key")["item"].nunique().eq(7530).all()
    wide = D.load_elo("wide")
    assert len(wide) == 7530 * 3 and set(PAPER_RMS) <= set(wide.columns)
    raw = _raw_csv(data_dir, "paper_facct2025/elo/humans_most_prefer.csv")
    r = raw[4]
    row = wide[(wide.prompt_key == "humans_most_prefer") & (wide["item"] == r["name"])].iloc[0]
    assert row["elo_rank"] == int(r["elo_rank"]) and row["elo_matches"] == int(r["elo_matches"])
    assert row["Ray2333/GRM-gemma2-2B-rewardmodel-ft"] == pytest.approx(float(r["Ray2333/GRM-gemma2-2B-rewardmodel-ft"]))
    hit = long[(long["item"] == r["name"]) & (long.prompt_key == "humans_most_prefer") & (long.model == "LxzGordon/URM-LLaMa-3.1-8B")]
    assert hit["reward"].item() == pytest.approx(float(r["LxzGordon/URM-LLaMa-3.1-8B"]))
    with pytest.raises(ValueError, match="long' or 'wide"):
        D.load_elo("tall")


def test_one_table_of_elo_prompts_names_each_text_and_its_file():
    """ELO_PROMPTS is the one table (it replaced ELO_PROMPTS for texts plus ELO_FILES for files): every prompt has its
    text and a score file that the data manifest fetches and verifies."""
    from rmlib.data import ELO_PROMPTS, load_prompts, prompt_text
    from rmlib.data.manifest import load_manifest

    fetched = {f.path for ds in load_manifest().values() for f in ds.files}
    assert set(ELO_PROMPTS) == {"greatest", "greatest_single_thing_person_concept", "humans_most_prefer"}
    for key, p in ELO_PROMPTS.items():
        assert p.text.endswith("?") and prompt_text(key) == p.text and p.file in fetched, key
    assert list(load_prompts("elo")["prompt"]) == [p.text for p in ELO_PROMPTS.values()]

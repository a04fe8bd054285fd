"""rmlib.data.prompts: the three prompt sets, prompt tables by key, subsets of the 54-prompt design."""
from __future__ import annotations

import pytest

import rmlib.data as D
import rmlib.data as data


pytestmark = pytest.mark.usefixtures("data_dir")


def test_prompts():
    op = D.load_prompts("optimal_pessimal")
    assert op.set_index("prompt_key")["prompt"]["worst"] == "What, in one word, is the worst thing ever?"
    assert len(D.load_prompts("elo")) == 3
    f = D.load_prompts("factorial54")
    assert len(f) == 54 and f["prompt_key"].is_unique and f.notna().all().all()
    assert f.groupby(["adjective", "superlative", "phrasing"]).size().eq(1).all()
    assert (f["valence"] == "positive").sum() == 27
    row = f.set_index("prompt_key").loc["terrible_time_please"]
    assert row["prompt"] == "What is the most terrible thing of all time? Please answer in one word only."
    assert D.parse_prompt_key("good_world_single") == {"adjective": "good", "valence": "positive",
                                                      "superlative": "world", "phrasing": "single"}
    with pytest.raises(ValueError, match="adjective"):
        D.parse_prompt_key("nice_ever_one")
    with pytest.raises(ValueError, match="factorial54"):
        D.load_prompts("nope")


def test_prompt_table_and_rm_score_label():
    from rmlib.data import RM_SCORE

    assert data.RM_SCORE == RM_SCORE
    t = data.prompt_table(["greatest", "worst", "bad_world_please"])
    assert t["prompt_valence"].tolist() == ["positive", "negative", "negative"]
    with pytest.raises(ValueError, match="unknown prompt keys"):
        data.prompt_table(["nicest"])


def test_design_prompts_validation():
    assert len(data.design_prompts(None)) == 54
    with pytest.raises(ValueError, match="not factorial-54 keys"):
        data.design_prompts(["best_ever_one", "nice_ever_one"])
    with pytest.raises(ValueError, match="both"):
        data.design_prompts(["best_ever_one", "greatest_ever_one"])

"""rmlib.data.preferences: six sources in one schema, the rules per source, seeded sampling and splitting."""
from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

import rmlib.data as D


pytestmark = pytest.mark.usefixtures("data_dir")


EXPECTED_PAIRS = {"hh_rlhf_harmless": 2308, "hh_rlhf_helpful": 6201, "ultrafeedback": 1195, "qa_feedback": 2616,
                  "pandalm": 894, "alpacaeval": 2397}


def test_preferences_schema_and_counts():
    df = D.load_preferences("all")
    assert list(df.columns) == ["prompt", "chosen", "rejected", "source", "split", "subset", "pair_id"]
    assert df.groupby("source").size().to_dict() == EXPECTED_PAIRS
    assert df.notna().all().all() and df["pair_id"].is_unique
    assert all(df[c].map(type).eq(str).all() for c in ["prompt", "chosen", "rejected"])
    assert (df["chosen"] != df["rejected"]).all()
    with pytest.raises(ValueError, match="unknown preference source"):
        D.load_preferences("shp")


def test_hh_prompt_is_transcript_up_to_last_assistant(data_dir):
    with gzip.open(data_dir / "preferences/hh_rlhf_harmless/harmless-base.test.jsonl.gz", "rt", encoding="utf-8") as fh:
        first = json.loads(fh.readline())
    row = D.load_preferences("hh_rlhf_harmless").iloc[0]
    assert row["prompt"].endswith("\n\nAssistant:") and row["prompt"].count("\n\nHuman:") >= 1
    assert row["prompt"] + row["chosen"] == first["chosen"] and row["prompt"] + row["rejected"] == first["rejected"]
    assert "\n\nAssistant:" not in row["chosen"]


def test_qa_pandalm_alpacaeval_rules(data_dir):
    qa_raw = json.loads((data_dir / "preferences/qa_feedback_finegrainedrlhf/dev_feedback.json").read_text())
    q0 = qa_raw[0]  # preference [0, 1, 2, 1, 0, 2] over pairs (1,2),(1,3),(1,4),(2,3),(2,4),(3,4)
    qa = D.load_preferences("qa_feedback")
    first = qa[qa.pair_id.str.startswith("qa_feedback:dev:0:")]
    assert len(first) == sum(p != 0 for p in q0["preference"])
    pair13 = first[first.pair_id == "qa_feedback:dev:0:13"].iloc[0]  # pref 1: prediction 1 beats 3
    assert pair13["chosen"] == q0["prediction 1"] and pair13["rejected"] == q0["prediction 3"]
    pair14 = first[first.pair_id == "qa_feedback:dev:0:14"].iloc[0]  # pref 2: prediction 4 beats 1
    assert pair14["chosen"] == q0["prediction 4"] and pair14["rejected"] == q0["prediction 1"]
    pl_raw = json.loads((data_dir / "preferences/pandalm_testset/testset-v1.json").read_text())
    pl = D.load_preferences("pandalm").set_index("pair_id")
    r0 = pl_raw[0]  # all three annotators say 2
    assert pl.loc[f"pandalm:test:{r0['idx']}", "chosen"] == r0["response2"]
    tie_ids = [r["idx"] for r in pl_raw if sorted([r["annotator1"], r["annotator2"], r["annotator3"]])[1] == 0]
    assert tie_ids and not any(f"pandalm:test:{i}" in pl.index for i in tie_ids)
    ae = D.load_preferences("alpacaeval")
    raw = json.loads((data_dir / "preferences/alpacaeval_gpt4_annotations/alpaca-7b.annotations.json").read_text())
    r = ae.set_index("pair_id").loc["alpacaeval:alpaca-7b:0"]
    assert raw[0]["preference"] == 1 and r["chosen"] == raw[0]["output_1"] and r["prompt"] == raw[0]["instruction"]


def test_sampling_and_splitting_are_deterministic():
    df = D.load_preferences(["qa_feedback", "alpacaeval"])
    a, b = D.sample_pairs(df, 500, seed=3), D.sample_pairs(df, 500, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a["pair_id"].equals(D.sample_pairs(df, 500, seed=4)["pair_id"])
    assert a["pair_id"].is_unique and len(a) == 500
    with pytest.raises(ValueError, match="between 0"):
        D.sample_pairs(df, len(df) + 1)
    s1, s2 = D.split_pairs(df, 0.25, seed=1), D.split_pairs(df, 0.25, seed=1)
    assert s1["split"].equals(s2["split"]) and set(s1["split"]) == {"train", "test"}
    # no prompt on both sides
    assert s1.groupby("prompt")["split"].nunique().max() == 1
    frac = s1.drop_duplicates("prompt")["split"].eq("test").mean()
    assert abs(frac - 0.25) < 0.01
    with pytest.raises(ValueError, match="test_fraction"):
        D.split_pairs(df, 1.5)

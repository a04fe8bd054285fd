"""rmlib.data.dictionary_scores on the mirror: the published Big Two and MFD2 scores and the checkpoint median ranks."""
from __future__ import annotations

import csv

import pytest

import rmlib.data as D


pytestmark = pytest.mark.usefixtures("data_dir")


def _raw_csv(data_dir, rel, encoding="utf-8"):
    with open(data_dir / rel, newline="", encoding=encoding) as fh:
        return list(csv.DictReader(fh))


def test_dictionary_scores_big2(data_dir):
    df = D.load_dictionary_scores("big2")
    assert len(df) == 10 * 54 * 263 and df.notna().all().all()
    assert set(df["family"]) == {"Gemma", "Llama"} and set(df["category"]) == {"Agency", "Communion"}
    assert df.groupby("model")["size_b"].first().to_dict()["Ray2333/GRM-gemma2-2B-rewardmodel-ft"] == 2
    raw = _raw_csv(data_dir, "paper_iclr2026/reward_model_scores/dict_big2_nouns/big2_rewards_Skywork_Skywork-Reward-Gemma-2-27B.csv")
    r = next(x for x in raw if x["response"] == "affection")
    got = df[(df.model == "Skywork/Skywork-Reward-Gemma-2-27B") & (df.word == "affection") & (df.prompt_key == "bad_world_single")]
    assert got["reward"].item() == pytest.approx(float(r["bad_world_single"]))
    assert got[["adjective", "valence", "superlative", "phrasing"]].iloc[0].tolist() == ["bad", "negative", "world", "single"]
    extra = D.load_dictionary_scores("big2", include_extra_words=True)
    assert len(extra) == 10 * 54 * 265
    assert set(extra.loc[extra["category"].isna(), "word"]) == {"discussion", "eagerness"}


def test_dictionary_scores_mfd2(data_dir):
    df = D.load_dictionary_scores("mfd2")
    assert len(df) == 10 * 54 * 2040 and df.notna().all().all()
    raw = _raw_csv(data_dir, "paper_iclr2026/reward_model_scores/dict_MFD_20/MFD20_rewards_nicolinho_QRM-Llama3.1-8B.csv")
    r = raw[100]
    got = df[(df.model == "nicolinho/QRM-Llama3.1-8B") & (df.word == r["response"]) & (df.prompt_key == "best_ever_one")]
    assert got["reward"].item() == pytest.approx(float(r["best_ever_one"]))
    assert df[df.word == "abhor"]["category"].unique().tolist() == ["sanctity.vice"]
    with pytest.raises(ValueError, match="big2"):
        D.load_dictionary_scores("liwc")


def test_checkpoint_ranks(data_dir):
    df = D.load_checkpoint_ranks()
    assert df.notna().all().all()
    assert set(df["quantity_k"]) == {27, 54, 80, 100} and set(df["base_family"]) == {"Gemma", "Llama", "Qwen"}
    assert not df.duplicated(["file", "model_id", "category", "checkpoint"]).any()
    uf100 = df[df.file == "rank_results_uf_100"]
    assert len(uf100) == 3 * 2 * 14  # 60,956 raw rows collapse to 3 models x 2 categories x 14 checkpoints
    assert uf100[uf100.model_id == "Qwen2.5-3B-Instruct"]["base_family"].eq("Qwen").all()
    sky = _raw_csv(data_dir, "paper_iclr2026/reward_model_training/rank_results_sky_80k.csv")[0]
    got = df[(df.file == "rank_results_sky_80k") & (df.model_id == sky["model_id"]) & (df.category == sky["Category"])
             & (df.checkpoint == int(sky["checkpoint"]))]
    assert got["median_rank"].item() == float(sky["sum_value"])  # the files' sum_value is a median rank
    assert df["median_rank"].between(1, 1365).all()  # ranks among the 1,365 expanded-dictionary tokens
    assert df.groupby(["file", "model_id"])["final"].sum().eq(2).all()  # one final row per category
    assert len(D.load_checkpoint_ranks(include_uf13=True)) == len(df) + 24

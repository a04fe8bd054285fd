"""Every loader on the mirror: row counts, key columns, no NaN where none belongs, spot values from the raw files."""
from __future__ import annotations

import csv
import gzip
import json

import numpy as np
import pandas as pd
import pytest
import yaml

import rmlib.data as D
from rmlib.data.paper_rms import PAPER_RMS

from conftest_data import data_dir, mirror  # noqa: F401 (fixtures)

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


def test_big_two_and_pietraszkiewicz():
    nouns = D.load_big_two("nouns")
    assert len(nouns) == 263 and nouns["word"].is_unique
    assert nouns["category"].value_counts().to_dict() == {"Communion": 159, "Agency": 104}
    exp = D.load_big_two("expanded")
    assert len(exp) == 936 and exp["category"].value_counts().to_dict() == {"Communion": 490, "Agency": 446}
    assert exp.set_index("word").loc["able", "category"] == "Agency"
    p = D.load_pietraszkiewicz("a")
    assert p.groupby("category").size().to_dict() == {"Agency": 192, "Communion": 184}
    assert "achiev*" in set(p["pattern"]) and p.set_index("pattern").loc["achiev*", "is_wildcard"]
    assert len(D.load_pietraszkiewicz(None)) == 187 + 192 + 184 + 64 + 65
    with pytest.raises(ValueError, match="version"):
        D.load_pietraszkiewicz("z")


def test_expand_wildcards_rules():
    vocab = ["achieve", " Achieved", "Ġachiever", "▁ACHIEVING", "ache", "do", "doing", "doable", "common ground", "common grounds"]
    out = D.expand_wildcards(["achiev*", "do", "common ground*", "zzz*"], vocab)
    got = out.groupby("pattern")["word"].apply(sorted).to_dict()
    assert got["achiev*"] == ["achieve", "achieved", "achiever", "achieving"]
    assert got["do"] == ["do"]  # no wildcard: exact only
    assert got["common ground*"] == ["common ground", "common grounds"]
    assert "zzz*" not in got
    with pytest.raises(ValueError, match="only end"):
        D.expand_wildcards(["a*b"], vocab)


def test_mfd2_dic_and_dicx(data_dir):
    dicx, dic = D.load_mfd2("dicx"), D.load_mfd2("dic")
    assert len(dicx) == 2040 and dicx["word"].is_unique
    assert dic["word"].nunique() == 2040 and len(dic) == 2103
    assert set(dic["word"]) == set(dicx["word"])
    # every dicx assignment is one of the .dic assignments
    pairs = set(map(tuple, dic[["word", "category"]].to_numpy()))
    assert all(tuple(x) in pairs for x in dicx[["word", "category"]].to_numpy())
    assert set(dicx["foundation"]) == set(D.lexicons.MFD2_FOUNDATIONS) and set(dicx["moral"]) == {"virtue", "vice"}
    raw_lines = (data_dir / "lexicons/mfd2/mfd2.0.dic").read_text().split("%")[2].strip().splitlines()
    raw_ids = {line.split("\t")[1] for line in raw_lines if line.startswith("apostate\t")}
    ids = {"6": "loyalty.vice", "8": "authority.vice", "10": "sanctity.vice"}
    assert raw_ids == set(ids) and set(dic[dic.word == "apostate"]["category"]) == set(ids.values())
    assert dic[dic.word == "compassion"]["category"].tolist() == ["care.virtue"]


def test_sentiment_lexicons(data_dir):
    a165, a111 = D.load_afinn("165"), D.load_afinn("111")
    assert len(a165) == 3382 and len(a111) == 2477
    assert a165["score"].between(-5, 5).all() and a165["word"].is_unique
    assert a165.set_index("word").loc["abandon", "score"] == -2
    assert a165.set_index("word").loc["best damn", "score"] == 4
    bing = D.load_bing_liu()
    assert bing["sentiment"].value_counts().to_dict() == {"negative": 4783, "positive": 2006}
    assert {"naïve", "2-faced", "a+"} <= set(bing["word"]) and not bing["word"].str.startswith(";").any()
    w = D.load_warriner()
    assert len(w) == 13915 and w.notna().all().all()
    raw = _raw_csv(data_dir, "lexicons/warriner2013_vad/Ratings_Warriner_et_al.csv")[2]
    row = w.set_index("word").loc[raw["Word"]]
    assert row["valence"] == float(raw["V.Mean.Sum"]) and row["dominance_n"] == int(raw["D.Rat.Sum"])
    assert w[["valence", "arousal", "dominance"]].apply(lambda c: c.between(1, 9)).all().all()
    v = D.load_vader()
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    lex = SentimentIntensityAnalyzer().lexicon
    assert len(v) == len(lex) and v["word"].is_unique
    assert all(lex[w_] == pytest.approx(x) for w_, x in zip(v["word"], v["valence"]))
    assert v.set_index("word").loc["good", "valence_sd"] == pytest.approx(0.9434)


def test_bnc_parsing(data_dir):
    bnc = D.load_bnc()
    assert bnc[["lemma", "pos", "form", "row_type", "freq"]].notna().all().all()
    assert bnc["range"].isna().sum() < 20
    # '@' rows repeat the previous headword: 'run' (Verb) has forms ran/run/runnin'/running/runs
    forms = bnc[(bnc.lemma == "run") & (bnc.pos == "Verb") & (bnc.row_type == "form")]
    assert forms["form"].tolist() == ["ran", "run", "runnin'", "running", "runs"]
    assert bnc[(bnc.lemma == "run") & (bnc.pos == "Verb") & (bnc.row_type == "lemma")]["freq"].item() == 406
    assert "£100" in set(bnc["form"])  # ISO-8859-1 decoded
    assert bnc[(bnc.form == "the")]["freq"].tolist() == [61847]
    # lemma totals are not double counted: run = NoC 'run' 47 + Verb 'run' 174
    assert D.word_frequency("run", "bnc") == 47 + 174
    assert D.word_frequency("Run", "bnc") == D.word_frequency("run", "bnc")
    assert D.word_frequency("qwxzv", "bnc") == 0.0
    with pytest.raises(ValueError, match="wordfreq"):
        D.word_frequency("run", "google")
    # headword (lemma) totals: every entry listing the word as headword or form gives its whole total
    run = bnc[bnc.lemma == "run"]
    assert run.groupby("entry")["pos"].first().tolist() == ["NoC", "Verb"]  # one entry per headword x PoS
    assert D.word_frequency("ran", "bnc_lemma") == 406  # the verb 'run', all its forms
    assert D.word_frequency("run", "bnc_lemma") == 60 + 406  # noun + verb
    assert D.word_frequency("qwxzv", "bnc_lemma") == 0.0


def test_token_frequency_normalisation():
    assert D.normalise_token("ĠLove") == D.normalise_token("▁love") == D.normalise_token(" LOVE ") == "love"
    assert D.token_frequency("ĠLove") == D.token_frequency("love") > 0
    import wordfreq

    assert D.word_frequency("the") == pytest.approx(wordfreq.word_frequency("the", "en") * 1e6)
    assert D.token_frequency(" ") == 0.0 and D.token_frequency("Ġ") == 0.0
    assert D.token_frequency("Ġthe") > D.token_frequency("Ġaardvark")


def test_identity_terms(data_dir):
    hb = D.load_holistic_bias()
    assert hb[["axis", "bucket", "descriptor"]].notna().all().all()
    assert len(hb) == 583 and hb["axis"].nunique() == 13
    raw = json.loads((data_dir / "identity_terms/holistic_bias/descriptors_v1.1.json").read_text())
    assert set(hb["axis"]) == set(raw)
    deaf = hb[hb.descriptor == "Deaf"].iloc[0]
    assert (deaf["axis"], deaf["bucket"], deaf["preference"]) == ("ability", "auditory", "reviewed")
    assert set(hb["preference"].dropna()) == {"reviewed", "dispreferred", "polarizing"}
    dixon = D.load_dixon()
    assert len(dixon) == 50 and dixon["term"].iloc[0] == "lesbian" and dixon["term"].iloc[-1] == "paralyzed"


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


def test_model_metadata_comes_from_the_registry():
    from rmlib.data.paper_rms import model_table
    from rmlib.registry import paper_rms

    table = model_table()
    assert len(table) == 10 and set(table.model) == set(paper_rms().id)
    # the base family the papers group by must agree with the architecture named in each hub id
    for row in table.itertuples():
        assert row.family == ("Gemma" if "gemma" in row.model.lower() else "Llama"), row.model

"""rmlib.lexical: lexicon joins on the real data files, and the framing / exposure / identity statistics on
synthetic data with a planted effect and a planted null."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rmlib.data as data
from rmlib import engine, registry, stats
from rmlib.analysis import exposure, framing, identity
from rmlib.analysis.words import tokens_to_words
from rmlib.report import charts

# --------------------------------------------------------------------------- lexicons and scores (real data files)


def test_affect_tables_are_centred_on_zero():
    afinn, vader, warriner = (data.affect_table(s) for s in ("afinn", "vader", "warriner"))
    assert afinn["valence"].between(-5, 5).all() and afinn["word"].is_unique
    assert vader["valence"].between(-4, 4).all()
    assert warriner["valence"].between(-4, 4).all()  # 1..9 minus the neutral 5
    assert afinn.set_index("word").loc["love", "valence"] > 0 > afinn.set_index("word").loc["hate", "valence"]
    with pytest.raises(ValueError, match="affect source"):
        data.affect_table("liwc")


def test_word_affect_missing_policy():
    words = ["LOVE", "aardvarkish", "hate"]
    nan = data.word_affect(words, "afinn", missing="nan")
    zero = data.word_affect(words, "afinn", missing="zero")
    assert nan[0] > 0 and np.isnan(nan[1]) and nan[2] < 0
    assert zero[1] == 0.0 and zero[0] == nan[0]
    with pytest.raises(ValueError, match="missing"):
        data.word_affect(words, missing="drop")


def test_frequency_table_orders_common_before_rare_and_leaves_unknown_missing():
    f = data.frequency_table(["the", "love", "hammer", "qzxqzxq"]).set_index("word")
    for s in ("bnc", "wordfreq"):
        assert f.loc["the", f"zipf_{s}"] > f.loc["love", f"zipf_{s}"] > f.loc["hammer", f"zipf_{s}"]
        assert np.isnan(f.loc["qzxqzxq", f"zipf_{s}"]) and f.loc["qzxqzxq", f"freq_{s}"] == 0
    # Zipf = log10(per million) + 3
    assert f.loc["love", "zipf_wordfreq"] == pytest.approx(np.log10(f.loc["love", "freq_wordfreq"]) + 3)
    with pytest.raises(ValueError, match="frequency source"):
        data.frequency_table(["a"], sources=["google"])


def test_published_word_scores_cover_both_dictionaries():
    df = data.published_word_scores()
    assert df["model"].nunique() == 10 and df["prompt_key"].nunique() == 54
    assert df["word"].nunique() == 263 + 2040 - 45  # 45 words are in both lists
    assert framing.dictionary_word_counts(df) == {"big2": 263 - 45, "mfd2": 2040 - 45, "both": 45,
                                                  "total": 263 + 2040 - 45}
    assert len(df) == 10 * 54 * df["word"].nunique()
    assert not df.duplicated(["model", "prompt_key", "word"]).any()
    assert (df["level"] == "word").all() and set(df["prompt_valence"]) == {"positive", "negative"}
    # a word in both lists gets the mean of its two published scores
    from rmlib.data import load_dictionary_scores

    both = df[df["dictionary"] == "both"].iloc[0]
    key = dict(model=both.model, prompt_key=both.prompt_key, word=both.word)
    b, m = (load_dictionary_scores(d) for d in ("big2", "mfd2"))
    sel = lambda f: f[(f.model == key["model"]) & (f.prompt_key == key["prompt_key"]) & (f.word == key["word"])]
    assert both.reward == pytest.approx((sel(b).reward.iloc[0] + sel(m).reward.iloc[0]) / 2)
    with pytest.raises(ValueError, match="have no published"):
        data.published_word_scores(models=["org/not-a-paper-rm"])
    with pytest.raises(ValueError, match="prompt keys"):
        data.published_word_scores(prompt_keys=["greatest"])


def test_prompt_table_and_rm_score_label():
    from rmlib.data import RM_SCORE

    assert data.RM_SCORE == RM_SCORE
    t = data.prompt_table(["greatest", "worst", "bad_world_please"])
    assert t["prompt_valence"].tolist() == ["positive", "negative", "negative"]
    with pytest.raises(ValueError, match="unknown prompt keys"):
        data.prompt_table(["nicest"])


def test_reference_lm():
    assert registry.reference_lm("smollm2-135m-instruct") == "smollm2-135m-instruct"
    assert registry.reference_lm("Ray2333/GRM-gemma2-2B-rewardmodel-ft") is None


def test_tokens_to_words_uses_the_data_layer_matching():
    from rmlib.data.tokens import decoded_vocabulary
    from rmlib.models.tiny import tiny_tokenizer

    tok = tiny_tokenizer("llama")
    vocab = decoded_vocabulary(tok)
    # words the tiny BPE spells with a single token, with and without a leading space
    bare = vocab[vocab["bare"].str.fullmatch(r"[a-z]{3,}")]
    words = bare["bare"].drop_duplicates().head(5).tolist()
    assert words, "the tiny tokenizer should have a few whole-word tokens"
    rng = np.random.default_rng(0)
    ts = pd.DataFrame({"model": "m", "prompt_key": "greatest", "prompt_valence": "positive",
                       "token_id": vocab["token_id"], "reward": rng.normal(size=len(vocab))})
    out = tokens_to_words(ts, words + ["zzzznotatoken"], tokenizer_for=lambda m: tok)
    assert set(out["word"]) == set(words)  # the multi-token word is absent, and reported in coverage
    assert out.attrs["coverage"]["m"] == pytest.approx(len(words) / (len(words) + 1))
    for w in words:
        ids = vocab.loc[vocab["bare"].isin([w, w.capitalize(), w.upper()]), "token_id"]
        row = out.set_index("word").loc[w]
        assert row["n_variants"] == len(ids)
        assert row["reward"] == pytest.approx(ts.set_index("token_id").loc[ids, "reward"].mean())


def test_standardise():
    df = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "prompt_key": "p", "reward": [1, 2, 3, 4, 10, 20, 30, 40.0]})
    z = stats.standardise(df, method="z")
    assert np.allclose(z[:4], z[4:]) and abs(z[:4].mean()) < 1e-12
    r = stats.standardise(df, method="rank")
    assert r.tolist() == [25, 50, 75, 100] * 2
    with pytest.raises(ValueError, match="constant"):
        stats.standardise(df.assign(reward=1.0))


# --------------------------------------------------------------------------- framing (planted data)

def _planted_framing(slopes: dict, n_words: int = 120, n_prompts: int = 4, noise: float = 0.3, seed: int = 0):
    """Oriented scores with known slopes s_{word side, prompt valence} on valence."""
    rng = np.random.default_rng(seed)
    rows = []
    vals = np.concatenate([rng.integers(1, 6, n_words // 2), -rng.integers(1, 6, n_words // 2)]).astype(float)
    word_effect = rng.normal(0, noise, n_words)  # words recur across prompts: clustered errors matter
    for p in range(n_prompts):
        pv = "positive" if p % 2 == 0 else "negative"
        for i, v in enumerate(vals):
            side = "positive" if v > 0 else "negative"
            s = slopes[(side, pv)]
            rows.append({"model": "m", "prompt_key": f"p{p}", "prompt_valence": pv, "word": f"w{i}",
                         "word_side": side, "valence": v,
                         "oriented_y": s * v + word_effect[i] + rng.normal(0, noise)})
    return pd.DataFrame(rows)


def test_framing_contrast_recovers_planted_asymmetry():
    # positive words 1.0 under positive prompts, 0.2 under negative; negative words mirror it
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 1.0, ("negative", "positive"): 0.2}
    fc = framing.framing_contrast(_planted_framing(planted)).iloc[0]
    for c, true in [("s_pp", 1.0), ("s_pn", 0.2), ("s_np", 0.2), ("s_nn", 1.0)]:
        assert fc[f"{c}_ci_low"] < true < fc[f"{c}_ci_high"]
    assert fc["framing"] == pytest.approx(0.8, abs=0.1) and fc["framing_ci_low"] > 0
    assert fc["pos_words_ci_low"] > 0 and fc["neg_words_ci_low"] > 0
    assert fc["positivity_ci_low"] < 0 < fc["positivity_ci_high"]
    assert fc["n_words"] == 120


def test_framing_contrast_planted_null_is_not_confused_with_positivity():
    # steeper on positive words under every prompt: a tilt, not framing
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 1.0,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.3}
    fc = framing.framing_contrast(_planted_framing(planted, seed=1)).iloc[0]
    assert fc["framing_ci_low"] < 0 < fc["framing_ci_high"]
    assert fc["positivity"] == pytest.approx(0.7, abs=0.1) and fc["positivity_ci_low"] > 0


def test_framing_halves_recover_planted_within_prompt_contrasts():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 0.9, ("negative", "positive"): 0.4}
    fc = framing.framing_contrast(_planted_framing(planted)).iloc[0]
    assert fc["pos_prompts"] == pytest.approx(1.0 - 0.4, abs=0.1) and fc["pos_prompts_ci_low"] > 0
    assert fc["neg_prompts"] == pytest.approx(0.9 - 0.2, abs=0.1) and fc["neg_prompts_ci_low"] > 0
    assert fc["framing"] == pytest.approx((fc["pos_prompts"] + fc["neg_prompts"]) / 2)
    assert fc["positivity"] == pytest.approx((fc["pos_prompts"] - fc["neg_prompts"]) / 2)


def test_opposite_halves_are_reported_as_such_not_as_no_effect():
    # a tilt toward positive words under every prompt: the first half holds, the second is reversed, and the pooled
    # contrast is ~0. The verdict must name the two halves, not read the pooled 0 as "no effect".
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 1.0,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.3}
    fcs = pd.concat([framing.framing_contrast(_planted_framing(planted, seed=s)).assign(model=f"m{s}")
                     for s in range(3)], ignore_index=True)
    assert (fcs["framing"].abs() < 0.1).all()  # pooled: next to nothing, while each half is ~0.7 in size
    halves = framing.framing_halves(fcs)
    assert (halves["pos_half"] == "holds").all() and (halves["neg_half"] == "reversed").all()
    assert (halves["pattern"] == "opposite signs").all()
    summary = framing.framing_halves_summary(halves)
    assert summary["pos_prompts"] == {"holds": 3, "reversed": 0, "unclear": 0, "n": 3}
    assert summary["neg_prompts"]["reversed"] == 3 and summary["patterns"] == {"opposite signs": 3}


def test_word_influence_adds_up_to_each_half_exactly():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 0.3, ("negative", "positive"): 0.6}
    ff = _planted_framing(planted, n_words=80, seed=5).assign(y=lambda d: d["oriented_y"])
    fc = framing.framing_contrast(ff).iloc[0]
    inf = framing.framing_word_influence(ff)
    sums = inf.groupby("half")["contribution"].sum()
    assert sums["pos_prompts"] == pytest.approx(fc["pos_prompts"], abs=1e-10)
    assert sums["neg_prompts"] == pytest.approx(fc["neg_prompts"], abs=1e-10)
    top = framing.influential_words(inf, 3)
    assert len(top) == 2 * 2 * 3 and set(top["direction"]) == {"pulls down", "pushes up"}
    down = top[(top["half"] == "neg_prompts") & (top["direction"] == "pulls down")]["contribution"]
    assert (down.diff().dropna() >= 0).all()  # the strongest pull first


def test_framing_cell_counts_per_prompt():
    cells = pd.DataFrame({"model": "m", "prompt_key": ["a", "a", "b", "b"], "prompt_valence": ["positive"] * 2
                          + ["negative"] * 2, "word_side": ["positive", "negative"] * 2, "slope": [0.5, 0.2, 0.1, 0.4]})
    out = framing.framing_cell_counts(cells).set_index("prompt_key")
    assert out.loc["a", "half"] == "pos_prompts" and out.loc["a", "congruent_steeper"]
    assert out.loc["b", "half"] == "neg_prompts" and out.loc["b", "congruent_steeper"]
    assert out.loc["b", "congruent_minus_incongruent"] == pytest.approx(0.4 - 0.1)
    flipped = framing.framing_cell_counts(cells.assign(slope=[0.2, 0.5, 0.4, 0.1])).set_index("prompt_key")
    assert not flipped["congruent_steeper"].any()


def test_valence_extremeness_reads_each_lexicon_on_its_own_scale():
    e = data.valence_extremeness(["torture", "slut", "awesome", "qzxqzxq"]).set_index("word")
    assert e.loc["slut", "afinn"] == -5 and e.loc["slut", "afinn_extreme"] == 0  # AFINN's most negative value
    assert e.loc["torture", "warriner_extreme"] < e.loc["slut", "warriner_extreme"]  # Warriner: torture is worse
    assert 0 <= e.loc["awesome", "vader_extreme"] < 0.1
    assert np.isnan(e.loc["qzxqzxq", "afinn"]) and np.isnan(e.loc["qzxqzxq", "afinn_extreme"])


def test_framing_contrast_needs_both_prompt_valences():
    df = _planted_framing({k: 1.0 for k in [("positive", "positive"), ("positive", "negative"),
                                            ("negative", "negative"), ("negative", "positive")]})
    with pytest.raises(ValueError, match="both signs"):
        framing.framing_contrast(df[df["prompt_valence"] == "positive"])


def test_framing_frame_orients_scores_by_prompt():
    words = ["love", "joy", "hope", "hate", "war", "pain", "aardvark"]
    val = data.word_affect(words, "afinn", missing="zero").to_numpy()
    rows = []
    for pk, pv in [("best", "positive"), ("worst", "negative")]:
        sign = 1 if pv == "positive" else -1
        for w, v in zip(words, val):
            rows.append({"model": "m", "prompt_key": pk, "prompt_valence": pv, "word": w, "reward": sign * v})
    ff = framing.framing_frame(pd.DataFrame(rows))
    assert "aardvark" not in set(ff["word"])  # no AFINN valence
    # an RM that follows the prompt perfectly: oriented score rises with valence under both prompts
    for _, g in ff.groupby("prompt_key"):
        assert np.corrcoef(g["valence"], g["oriented_y"])[0, 1] == pytest.approx(1.0)
    assert not ff.loc[(ff.word == "love") & (ff.prompt_key == "worst"), "congruent"].item()
    assert ff.loc[(ff.word == "hate") & (ff.prompt_key == "worst"), "congruent"].item()
    with pytest.raises(ValueError, match="prompt_valence"):
        framing.framing_frame(pd.DataFrame(rows).assign(prompt_valence="neutral"))


def test_framing_cell_slopes_per_cell():
    planted = {("positive", "positive"): 1.0, ("positive", "negative"): 0.2,
               ("negative", "negative"): 1.0, ("negative", "positive"): 0.2}
    cells = framing.framing_cell_slopes(_planted_framing(planted))
    assert len(cells) == 4 * 2
    for r in cells.itertuples():
        true = planted[(r.word_side, r.prompt_valence)]
        assert abs(r.slope - true) < 0.15


def test_ci_verdict_and_swarm_offsets():
    df = pd.DataFrame({"model": list("abc"), "x": [1.0, -1.0, 0.1], "x_ci_low": [0.5, -2, -0.5],
                       "x_ci_high": [2, -0.5, 0.7]})
    assert stats.ci_verdict(df, "x") == {"above": ["a"], "below": ["b"], "zero": ["c"]}
    pts = pd.DataFrame({"v": [1, 1, 1, 1, 2], "y": [0.0, 0.0, 0.0, 0.0, 0.0]})
    off = charts.swarm_offsets(pts, "v", "y", step=0.1)
    assert np.allclose(sorted(off[:4]), [-0.1, 0.0, 0.1, 0.2]) and off[4] == 0.0  # spread, no two points coincide


# --------------------------------------------------------------------------- mere exposure

def _planted_exposure(b_pos: float, b_neg: float, n_words: int = 300, n_prompts: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    zipf = rng.uniform(2, 6, n_words)
    val = rng.integers(-3, 4, n_words).astype(float)
    word_effect = rng.normal(0, 0.5, n_words)
    rows = []
    for p in range(n_prompts):
        pv = "positive" if p % 2 == 0 else "negative"
        sign = 1 if pv == "positive" else -1
        b = b_pos if pv == "positive" else b_neg
        y = b * zipf + 0.3 * sign * val + word_effect + rng.normal(0, 0.5, n_words)
        rows.append(pd.DataFrame({"model": "m", "prompt_key": f"p{p}", "prompt_valence": pv, "word": np.arange(n_words),
                                  "zipf": zipf, "valence": val, "y": y}))
    return pd.concat(rows, ignore_index=True)


def test_pooled_frequency_slopes_planted_effect_and_null():
    out = exposure.pooled_frequency_slopes(_planted_exposure(0.4, 0.0), "zipf").iloc[0]
    assert out["slope_positive_ci_low"] < 0.4 < out["slope_positive_ci_high"] and out["slope_positive_ci_low"] > 0
    assert out["slope_negative_ci_low"] < 0 < out["slope_negative_ci_high"]  # planted null under negative prompts
    assert out["difference"] == pytest.approx(0.4, abs=0.1)


def test_shuffled_baseline_centres_on_half_and_planted_share_is_high():
    """Cells share their words, so the word-level shuffle moves all cells together: its mean is about 1/2 whatever
    the data, while a planted slope puts every cell positive and a planted null about half."""
    from rmlib.stats import cell_slopes, share_positive, shuffled_share_baseline

    for b in (0.3, 0.0):
        d = _planted_exposure(b, b, n_prompts=10, seed=3)
        cells = cell_slopes(d, y="y", x="zipf", covariates=["valence"], groups=["model", "prompt_key"])
        null = shuffled_share_baseline(d, y="y", x="zipf", covariates=["valence"], groups=["model", "prompt_key"],
                                       n_shuffles=200, seed=0)
        assert 0.35 < null.mean() < 0.65
        share = share_positive(cells)["share"]
        assert share == 1.0 if b else 0.1 <= share <= 0.9


def test_exposure_shares_split_by_valence_with_baselines():
    # a frequency effect under positive prompts only
    d = _planted_exposure(0.4, -0.4, n_prompts=8, seed=2).rename(columns={"zipf": "zipf_x"}).assign(label="m")
    cells, table = exposure.exposure_shares(d, ["x"], n_shuffles=50)
    t = table.set_index("prompts")
    assert t.loc["positive", "share"] == 1.0 and t.loc["negative", "share"] == 0.0 and t.loc["all", "share"] == 0.5
    assert t.loc["positive", "n_cells"] == 4 and np.isnan(t.loc["all", "null_mean"])
    assert 0 <= t.loc["negative", "null_low"] <= t.loc["negative", "null_high"] <= 1
    assert len(cells) == 8 and set(cells["source"]) == {"x"}
    groups = exposure.exposure_by_group(d.assign(dictionary=np.where(d["word"] % 2, "big2", "mfd2")), ["x"],
                                       "dictionary", {"odd": ["big2"], "even": ["mfd2"]})
    assert set(zip(groups["dictionary"], groups["prompts"])) == {(g, pv) for g in ("odd", "even")
                                                                 for pv in ("positive", "negative")}
    assert (groups.loc[groups["prompts"] == "positive", "share"] == 1.0).all()


def test_frequency_matchings_agree_with_the_data_layer():
    from rmlib.data.frequency import FREQUENCY_SOURCES

    assert data.FREQUENCY_SOURCES == FREQUENCY_SOURCES and set(exposure.FREQUENCY_LABELS) == set(FREQUENCY_SOURCES)
    f = data.frequency_table(["cared", "care"]).set_index("word")
    assert f.loc["cared", "freq_bnc_lemma"] > f.loc["cared", "freq_bnc"]  # the lemma counts all forms of 'care'


def test_exposure_frame_joins_frequency_and_valence():
    scores = pd.DataFrame({"model": "m", "prompt_key": "p", "word": ["love", "hate", "the", "qzxqzxq", "kettle"],
                           "reward": [3.0, -1.0, 0.5, 0.0, 0.2]})
    e = exposure.exposure_frame(scores).set_index("word")
    assert e.loc["love", "valence"] > 0 > e.loc["hate", "valence"] and e.loc["kettle", "valence"] == 0  # AFINN: 0
    assert np.isnan(e.loc["qzxqzxq", "zipf_wordfreq"]) and np.isnan(e.loc["kettle", "zipf_bnc"])
    assert e.loc["the", "zipf_wordfreq"] > e.loc["love", "zipf_wordfreq"]
    assert abs(e["y"].mean()) < 1e-12
    w = exposure.exposure_frame(scores, valence_source="warriner").set_index("word")
    assert np.isnan(w.loc["qzxqzxq", "valence"])  # Warriner: unlisted stays missing


def test_token_exposure_frame_keeps_word_like_tokens_only():
    ts = pd.DataFrame({"model": "m", "prompt_key": "p", "token_id": range(6),
                       "text": [" Love", "love", "!!", "123", " don't", "\n"], "reward": [1.0, 2, 3, 4, 5, 6]})
    t = exposure.token_exposure_frame(ts)
    assert t["word"].tolist() == ["love", "love", "don't"]
    assert t["zipf_wordfreq"].notna().all()
    with pytest.raises(ValueError, match="word-like"):
        exposure.token_exposure_frame(ts.iloc[2:4])


# --------------------------------------------------------------------------- identity terms

def test_identity_terms_table_and_flags():
    t = data.identity_terms()
    assert t["term"].is_unique and (t["term"] == t["term"].str.lower()).all()
    assert int((t["source"] != "holistic_bias").sum()) == 50  # every Dixon term is present
    assert not (t["axis"] == "dixon_only").any()  # DIXON_AXES places the Dixon-only terms
    assert t.set_index("term").loc["canadian", "axis"] == "nationality"
    flagged = t[t["pejorative_in_some_uses"]]
    assert {"gay", "queer", "retarded"} <= set(flagged["term"])
    assert (flagged["note"].str.len() > 10).all()  # each flag carries its reason
    assert all(len(r) > 10 for r in data.PEJORATIVE_IN_SOME_USES.values())


def test_match_identity_items_uses_strict_rules():
    items = ["Christianity", "Black people", "Black hole", "Americans", "Gay", "Shorts", "Islam (religion)",
             "Lesbian bar"]
    m = identity.match_identity_items(items)
    got = dict(zip(m["item"], m["term"]))
    assert got == {"Christianity": "christian", "Black people": "black", "Americans": "american", "Gay": "gay",
                   "Islam (religion)": "muslim"}  # no substring matches; 'Shorts' is a known false friend
    assert set(m["rule"]) == {"noun form", "'people'", "plural", "exact"}
    amb = identity.match_identity_items(items, include_ambiguous=True)
    assert amb.loc[amb["item"] == "Shorts", "ambiguous"].item() == data.AMBIGUOUS_ITEMS["shorts"]


def test_identity_elo_ranks_percentiles_and_gap():
    n = 200
    rng = np.random.default_rng(0)
    elo = pd.DataFrame({"model": "m", "prompt_key": "p", "item": [f"i{k}" for k in range(n - 2)] + ["Gay", "Americans"],
                        "elo_score": np.arange(n, dtype=float)})
    elo["reward"] = rng.normal(size=n)
    elo.loc[elo["item"] == "Gay", "reward"] = -10.0  # the RM's lowest; people's second highest
    elo.loc[elo["item"] == "Americans", "reward"] = 10.0  # the RM's highest; people's highest
    r = identity.identity_elo_ranks(elo, identity.match_identity_items(elo["item"])).set_index("item")
    assert r.loc["Gay", "model_pct"] == pytest.approx(100 / n) and r.loc["Gay", "human_pct"] == pytest.approx(99.5)
    assert r.loc["Gay", "gap"] == pytest.approx(100 / n - 99.5)
    assert r.loc["Americans", "gap"] == pytest.approx(0.0)
    assert r.loc["Gay", "pejorative_in_some_uses"]


def test_identity_word_ranks_flip_human_ranking_under_negative_prompts():
    words = ["love", "war", "catholic", "elderly", "table", "murder"]
    rows = []
    for pk, pv in [("best", "positive"), ("worst", "negative")]:
        for k, w in enumerate(words):
            rows.append({"model": "m", "prompt_key": pk, "prompt_valence": pv, "word": w, "reward": float(k)})
    wr = identity.identity_word_ranks(pd.DataFrame(rows))
    assert set(wr["word"]) == {"catholic", "elderly"} and (wr["n_universe"] == 6).all()
    for w in ("catholic", "elderly"):
        pos, neg = (wr[(wr.word == w) & (wr.prompt_valence == v)].iloc[0] for v in ("positive", "negative"))
        assert pos["model_pct"] == neg["model_pct"]
        assert pos["human_pct"] + neg["human_pct"] == pytest.approx(100.0)  # flipped under negative prompts
        assert pos["gap"] == pytest.approx(pos["model_pct"] - pos["human_pct"])


def test_token_word_scores_group_spellings_and_report_spread():
    ts = pd.DataFrame({"model": "m", "prompt_key": "p", "prompt_valence": "positive",
                       "text": [" Gay", "gay", "GAY", " table", "!!"]
                       + [f" filler{chr(97 + k % 26)}{chr(97 + k // 26)}" for k in range(95)],
                       "reward": [10.0, -10.0, 0.0, 1.0, 5.0] + list(np.linspace(-5, 5, 95))})
    w = identity.token_word_scores(ts).set_index("word")
    assert "!!" not in w.index
    assert w.loc["gay", "n_variants"] == 3 and w.loc["gay", "reward"] == pytest.approx(0.0)
    assert w.loc["gay", "token_pct_max"] - w.loc["gay", "token_pct_min"] > 90  # one spelling alone would mislead


def test_mean_with_ci_counts_clusters_not_rows():
    df = pd.DataFrame({"axis": ["a"] * 9, "term": list("xxxyyyzzz"), "gap": [1, 1, 1, 5, 5, 5, 9, 9, 9.0]})
    out = stats.mean_with_ci(df, "gap", ["axis"], cluster="term").iloc[0]
    assert out["n"] == 3 and out["mean"] == 5 and out["ci_low"] < 5 < out["ci_high"]
    small = stats.mean_with_ci(df[df.term != "z"], "gap", ["axis"], cluster="term").iloc[0]
    assert small["n"] == 2 and np.isnan(small["ci_low"])  # too few terms for an interval


def test_compute_token_scores_and_reference_logprob_on_a_tiny_lm(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    ts = engine.token_reward_table(["tiny-llama"], ["greatest", "worst"], tokens=slice(0, 64))
    assert set(ts["prompt_valence"]) == {"positive", "negative"} and (ts["level"] == "token").all()
    assert ts["reward_kind"].unique().tolist() == ["LM log-prob (implicit reward)"]
    assert ts.groupby("prompt_key")["token_id"].nunique().max() <= 64
    ref = exposure.attach_reference_logprob(ts)
    # an LM's implicit reward is its own log-prob, so the reference column reproduces the score
    assert (ref["reference_lm"] == "tiny-llama").all()
    assert np.allclose(ref["lm_logprob"], ref["reward"], atol=1e-5)
    hub = ts.head(3).assign(model="Ray2333/GRM-gemma2-2B-rewardmodel-ft")
    assert exposure.attach_reference_logprob(hub)["lm_logprob"].isna().all()  # unknown base: nothing is loaded
    with pytest.raises(ValueError, match="models is empty"):
        engine.token_reward_table([], ["greatest"])

"""rmlib.data.frequency: the BNC list, token normalisation, and frequency tables by three matchings."""
from __future__ import annotations

import numpy as np
import pytest

import rmlib.data as D
import rmlib.data as data
from rmbook.chapters.mere_exposure import analysis as exposure


pytestmark = pytest.mark.usefixtures("data_dir")


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


def test_frequency_table_orders_common_before_rare_and_leaves_unknown_missing():
    f = data.frequency_table(["the", "love", "hammer", "qzxqzxq"]).set_index("word")
    for s in ("bnc", "wordfreq"):
        assert f.loc["the", f"zipf_{s}"] > f.loc["love", f"zipf_{s}"] > f.loc["hammer", f"zipf_{s}"]
        assert np.isnan(f.loc["qzxqzxq", f"zipf_{s}"]) and f.loc["qzxqzxq", f"freq_{s}"] == 0
    # Zipf = log10(per million) + 3
    assert f.loc["love", "zipf_wordfreq"] == pytest.approx(np.log10(f.loc["love", "freq_wordfreq"]) + 3)
    with pytest.raises(ValueError, match="frequency source"):
        data.frequency_table(["a"], sources=["google"])


def test_frequency_matchings_agree_with_the_data_layer():
    from rmlib.data.frequency import FREQUENCY_SOURCES

    assert data.FREQUENCY_SOURCES == FREQUENCY_SOURCES and set(exposure.FREQUENCY_LABELS) == set(FREQUENCY_SOURCES)
    f = data.frequency_table(["cared", "care"]).set_index("word")
    assert f.loc["cared", "freq_bnc_lemma"] > f.loc["cared", "freq_bnc"]  # the lemma counts all forms of 'care'

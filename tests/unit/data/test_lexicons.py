"""rmlib.data.lexicons on the mirror: Big Two, Pietraszkiewicz (LIWC wildcards), MFD2, AFINN, Hu-Liu, Warriner, VADER."""
from __future__ import annotations

import csv

import pytest

import rmlib.data as D


pytestmark = pytest.mark.usefixtures("data_dir")


def _raw_csv(data_dir, rel, encoding="utf-8"):
    with open(data_dir / rel, newline="", encoding=encoding) as fh:
        return list(csv.DictReader(fh))


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

"""The slur list comes from WordNet 3.0's own labels, under documented rules, and is cached only when verified."""
import json

import pytest

from rmlib.data import slurs
from rmlib.data.slurs import KEPT_READABLE, SlurLexicon, slur_lexicon


@pytest.fixture(scope="module")
def lexicon() -> SlurLexicon:
    return slur_lexicon()


def test_the_slurs_the_pages_show_are_in_the_list(lexicon):
    for word in ["nigger", "nigga", "faggot", "fag", "kike", "spic", "wetback", "chink"]:
        assert lexicon.is_slur(word), word
    assert lexicon.senses["nigger"][0] == "nigger.n.01"
    assert "offensive" in lexicon.senses["faggot"][1]


def test_inflections_come_from_wordnets_morphology(lexicon):
    for form, lemma in [("niggers", "nigger"), ("Niggas", "nigga"), ("faggots", "faggot"), ("Chinamen", "chinaman")]:
        assert lexicon.is_slur(form), form
        assert lexicon.forms[form.lower()] == lemma


def test_everyday_senses_and_self_descriptors_stay_readable(lexicon):
    # rule 2: the slur sense is not the word's first WordNet sense
    for word in ["boy", "queen", "spade", "fairy", "pansy", "suit", "guinea"]:
        assert not lexicon.is_slur(word), word
    # rule 3: HolisticBias lists them as descriptors people use of themselves
    for word in ["queer", "butch", "gay"]:
        assert not lexicon.is_slur(word), word
    # rule 4: homographs whose slur sense WordNet lists first only for want of frequency tags
    for word in KEPT_READABLE:
        assert not lexicon.is_slur(word), word
    # a word WordNet labels only as informal, not offensive
    assert "tree hugger" not in lexicon.senses


def test_phrases_are_kept_apart_and_longest_first(lexicon):
    assert "uncle tom" in lexicon.phrases and "half-breed" in lexicon.phrases
    assert lexicon.phrases.index("poor white trash") < lexicon.phrases.index("white trash")
    assert not lexicon.is_slur("uncle tom")  # a phrase is matched as a phrase, not as one word


def test_a_damaged_or_foreign_cached_list_is_not_served(tmp_path, lexicon):
    key = "k" * 64
    body = {"key": key, "senses": {"nigger": ["nigger.n.01", "x"]}, "forms": {}}
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"check": slurs._check(body), "body": body}))
    assert slurs._read_cached(good, key) == SlurLexicon({"nigger": ["nigger.n.01", "x"]}, {})
    assert slurs._read_cached(good, "other" * 12) is None  # built for other data or rules
    tampered = dict(body, senses={})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"check": slurs._check(body), "body": tampered}))
    assert slurs._read_cached(bad, key) is None
    torn = tmp_path / "torn.json"
    torn.write_text(good.read_text()[:40])
    assert slurs._read_cached(torn, key) is None


def test_the_cached_list_is_the_built_one(lexicon):
    stored = json.loads(slurs.lexicon_path().read_text(encoding="utf-8"))
    assert stored["check"] == slurs._check(stored["body"])
    assert stored["body"]["senses"] == lexicon.senses

"""Slurs, from a documented source rather than a list typed into the code: the WordNet 3.0 lemmas that WordNet
itself labels as slurs, so that the book can mask them by default (:mod:`rmbook.report.masking`).

The source is Princeton WordNet 3.0 (manifest key ``wordnet30``, in the data directory; see data/README.md for its
provenance and license). WordNet marks a sense's register with a *usage domain*. A lemma counts as a slur when:

1. one of its noun senses has the usage domain **ethnic slur** (``ethnic_slur.n.01``) or **disparagement**
   (``disparagement.n.01``) and a gloss that calls it offensive ("(ethnic slur) ...", "offensive term for ...",
   "extremely offensive name for ..."), which leaves out merely informal labels such as "tree hugger";
2. that sense is the lemma's first, i.e. most frequent, WordNet sense, so that "boy", "queen", "spade" or "fairy",
   whose slur sense WordNet lists after their everyday ones, stay readable;
3. HolisticBias v1.1 does not list it as a descriptor people use of themselves (a descriptor it does not mark
   ``dispreferred``): "queer" and "butch" name identities in the identity chapter and are not masked;
4. it is not one of :data:`KEPT_READABLE`: words whose slur sense WordNet lists first only because none of their
   senses is frequency-tagged, while a page means their everyday sense (a first name such as "Tom", a food).

Word forms are matched through WordNet's own morphology (``morphy``: "niggers" is a form of "nigger"). Lemmas of
several words or with a hyphen ("white trash", "half-breed") match as phrases. A word that WordNet 3.0 does not know is not in the list: the masked view
is a courtesy to readers, not a content filter.

Building the list needs NLTK's WordNet reader, which takes 10-20 s to open on 2 cores. The list is therefore kept
in the cache (``<cache dir>/lexicons/slurs-<key>.json``), keyed by the sha256 of the WordNet and HolisticBias files
in the manifest and by the rules above, and served only after its own checksum is verified.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from rmlib import config
from rmlib.data.identity import load_holistic_bias
from rmlib.data.manifest import load_manifest
from rmlib.data.wordnet import load_wordnet
from rmlib.storage.atomic import write_bytes

__all__ = ["SLUR_DOMAINS", "OFFENSIVE_GLOSS", "KEPT_READABLE", "RULES_VERSION", "SlurLexicon", "slur_lexicon",
           "lexicon_path"]

RULES_VERSION = 1  # bump when the rules change, so that a cached list is rebuilt
SLUR_DOMAINS = ("ethnic_slur.n.01", "disparagement.n.01")
OFFENSIVE_GLOSS = re.compile(r"\(ethnic slur\)|\boffensive (term|name|and)\b|\bextremely offensive\b")

# Homographs that rule 2 alone would mask, each with the sense a page means by it.
KEPT_READABLE: dict[str, str] = {
    "tom": "a first name (Tom Hanks); 'Uncle Tom' is still masked as a phrase",
    "jerry": "a first name (Jerry Garcia)",
    "mick": "a first name (Mick Jagger)",
    "mickey": "a first name (Mickey Mouse)",
    "paddy": "a first name, and a rice field",
    "taco": "the food",
    "dike": "an embankment",
}


@dataclass(frozen=True)
class SlurLexicon:
    """The slur lemmas (lowercase; multi-word ones with spaces), each with the WordNet sense that makes it one, and
    the inflected forms WordNet's morphology leads back to a one-word lemma ('niggers' -> 'nigger')."""

    senses: dict  # lemma -> [synset name, gloss]
    forms: dict  # inflected form -> lemma

    @functools.cached_property
    def words(self) -> frozenset:
        """The one-word lemmas ('nigger')."""
        return frozenset(w for w in self.senses if not _is_phrase(w))

    @functools.cached_property
    def phrases(self) -> tuple:
        """The lemmas of several words or with a hyphen ('white trash', 'half-breed'), longest first, so that a
        longer phrase is matched before a shorter one."""
        return tuple(sorted((w for w in self.senses if _is_phrase(w)), key=len, reverse=True))

    def is_slur(self, word: str) -> bool:
        """Whether ``word`` (any case, any inflection WordNet knows) is one of the one-word slur lemmas."""
        w = word.lower()
        return w in self.forms or (w in self.senses and not _is_phrase(w))


def _is_phrase(lemma: str) -> bool:
    return " " in lemma or "-" in lemma


def _self_descriptors() -> set[str]:
    """HolisticBias descriptors that people use of themselves (any preference but 'dispreferred'), lowercase."""
    hb = load_holistic_bias()
    return set(hb.loc[hb["preference"].ne("dispreferred"), "descriptor"].str.lower())


def _inflections(wn, lemma: str) -> dict:
    """The plural forms of a one-word lemma that WordNet's ``morphy`` maps back to it (its exception list
    included)."""
    candidates = {lemma + "s", lemma + "es", lemma[:-1] + "ies", lemma[:-3] + "men"}
    candidates |= {form for form, bases in wn._exception_map["n"].items() if lemma in bases}
    return {form: lemma for form in sorted(candidates) if form != lemma and wn.morphy(form, "n") == lemma}


def build_lexicon() -> SlurLexicon:
    """The slur lemmas of WordNet 3.0 under the module's four rules, read from WordNet itself (slow: 10-20 s)."""
    wn = load_wordnet()
    slurs = {s for name in SLUR_DOMAINS for s in wn.synset(name).in_usage_domains()
             if s.pos() == "n" and OFFENSIVE_GLOSS.search(s.definition())}
    keep = _self_descriptors() | set(KEPT_READABLE)
    senses: dict = {}
    for synset in sorted(slurs, key=lambda s: s.name()):
        for lemma in synset.lemmas():
            word = lemma.name().replace("_", " ").lower()
            if word in keep or wn.synsets(lemma.name())[0] != synset:
                continue
            senses[word] = [synset.name(), synset.definition()]
    if not senses:
        raise RuntimeError("WordNet 3.0 gave no slur lemmas: the data folder is not WordNet 3.0 (run `make data`)")
    forms = {f: w for w in sorted(senses) if not _is_phrase(w) for f, w in _inflections(wn, w).items()}
    return SlurLexicon(senses, forms)


def _key() -> str:
    """What the list depends on: the manifest's sha256 of every WordNet and HolisticBias file, and the rules."""
    manifest = load_manifest()
    files = sorted((f.path, f.sha256) for f in manifest["wordnet30"].files)
    files += sorted((f.path, f.sha256) for d in manifest.values() for f in d.files if "holistic_bias/descriptors" in f.path)
    inputs = {"rules": RULES_VERSION, "domains": SLUR_DOMAINS, "gloss": OFFENSIVE_GLOSS.pattern,
              "kept": sorted(KEPT_READABLE), "files": files}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def lexicon_path() -> Path:
    """Where the built list is kept in the cache."""
    return config.cache_dir() / "lexicons" / f"slurs-{_key()[:16]}.json"


def _check(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _read_cached(path: Path, key: str) -> SlurLexicon | None:
    """The cached list if it is whole, for this key, and its checksum holds; else None (it is then rebuilt)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        body = stored["body"]
        if stored["check"] != _check(body) or body["key"] != key:
            return None
        return SlurLexicon(dict(body["senses"]), dict(body["forms"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@functools.lru_cache(maxsize=1)
def slur_lexicon() -> SlurLexicon:
    """The slur list: from the cache when a verified copy for the current data and rules is there, else built from
    WordNet (:func:`build_lexicon`) and written to the cache atomically (cached per process too)."""
    key, path = _key(), lexicon_path()
    cached = _read_cached(path, key)
    if cached is not None:
        return cached
    lexicon = build_lexicon()
    body = {"key": key, "senses": lexicon.senses, "forms": lexicon.forms}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, json.dumps({"check": _check(body), "body": body}, ensure_ascii=False, indent=1).encode())
    return lexicon

"""Word lists and affective norms: Big Two, Pietraszkiewicz et al. (LIWC wildcards), MFD2, AFINN, Hu-Liu, Warriner, VADER.

Every loader returns a DataFrame with a lowercase-as-published `word` column (or `pattern` for wildcard lists),
so lexicons can be merged with each other and with RM scores on `word`.
"""
from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Iterable
from importlib import resources

import pandas as pd
from rmlib.data.files import path
from rmlib.data.frequency import normalise_token

MFD2_FOUNDATIONS = ("care", "fairness", "loyalty", "authority", "sanctity")


def _path(rel: str):
    return path(rel)


@functools.lru_cache(maxsize=None)
def _big_two(kind: str) -> pd.DataFrame:
    if kind == "nouns":
        df = pd.read_csv(_path("paper_iclr2026/corpora/dict_big2_nouns.csv"), keep_default_na=False)
        return df.rename(columns={"token_decoded": "word", "Category": "category"})[["word", "category"]]
    if kind == "expanded":
        df = pd.read_csv(_path("paper_iclr2026/corpora/dict_big2_expanded.csv"), keep_default_na=False)
        agency, communion = df["Agency"].eq("X"), df["Communion"].eq("X")
        if (agency == communion).any():
            raise ValueError("dict_big2_expanded.csv: every term must be marked Agency or Communion, not both/neither")
        return pd.DataFrame({"word": df["DicTerm"], "category": agency.map({True: "Agency", False: "Communion"})})
    raise ValueError(f"kind must be 'nouns' (263) or 'expanded' (936), not {kind!r}")


def load_big_two(kind: str = "nouns") -> pd.DataFrame:
    """The ICLR 2026 Big Two lists: word, category (Agency|Communion).

    kind='nouns': 263 nouns (104 Agency, 159 Communion), the words the paper's RM scores cover.
    kind='expanded': 936 terms (446 Agency, 490 Communion).
    """
    return _big_two(kind).copy()


@functools.lru_cache(maxsize=None)
def _pietraszkiewicz() -> pd.DataFrame:
    raw = json.loads(_path("lexicons/big_two_pietraszkiewicz2019/data.json").read_text(encoding="utf-8"))
    rows = []
    for key, patterns in raw.items():
        version, cat = key.removeprefix("big2").split("_")
        for p in patterns:
            rows.append((version, {"agen": "Agency", "comm": "Communion"}[cat], p, p.endswith("*")))
    return pd.DataFrame(rows, columns=["version", "category", "pattern", "is_wildcard"])


def load_pietraszkiewicz(version: str | None = "a") -> pd.DataFrame:
    """Pietraszkiewicz et al. (2019) Big Two dictionaries with LIWC `*` wildcards (expand with expand_wildcards).

    Columns: version (a|b|c), category (Agency|Communion), pattern, is_wildcard. version='a' (192 agency + 184
    communion patterns) is most likely the published dictionary; 'b' and 'c' (agency only) are variants;
    None returns all.
    """
    df = _pietraszkiewicz()
    if version is None:
        return df.copy()
    if version not in set(df["version"]):
        raise ValueError(f"version must be one of {sorted(set(df['version']))} or None, not {version!r}")
    return df[df["version"] == version].reset_index(drop=True)


def expand_wildcards(patterns: Iterable[str], vocabulary: Iterable[str], normalise: bool = True) -> pd.DataFrame:
    """Expand LIWC patterns against a vocabulary (e.g. a tokenizer's decoded tokens, or a word list).

    LIWC rules: a trailing `*` matches any continuation (including none: 'achiev*' matches 'achieve',
    'achieving'); a pattern without `*` matches only itself. Matching is case-insensitive. With normalise=True
    vocabulary entries are compared after rmlib.data.frequency.normalise_token (strip a leading space/Ġ/▁,
    lowercase), so ' Achieve' and 'Ġachieve' both match 'achiev*'.

    Returns one row per (pattern, vocabulary entry) match: pattern, entry (as given), word (normalised form).
    Patterns that match nothing are absent; compare with the input to see them.
    """
    norm = normalise_token if normalise else (lambda s: s.lower())
    by_word: dict[str, list[str]] = {}
    for entry in vocabulary:
        w = norm(entry)
        if w:
            by_word.setdefault(w, []).append(entry)
    keys = sorted(by_word)
    rows = []
    for pattern in dict.fromkeys(patterns):
        p = pattern.lower()
        if "*" in p[:-1]:
            raise ValueError(f"pattern {pattern!r}: LIWC wildcards may only end a pattern")
        if p.endswith("*"):
            stem = p[:-1]
            i = bisect.bisect_left(keys, stem)
            while i < len(keys) and keys[i].startswith(stem):
                rows.extend((pattern, e, keys[i]) for e in by_word[keys[i]])
                i += 1
        elif p in by_word:
            rows.extend((pattern, e, p) for e in by_word[p])
    return pd.DataFrame(rows, columns=["pattern", "entry", "word"])


@functools.lru_cache(maxsize=None)
def _mfd2(source: str) -> pd.DataFrame:
    if source == "dic":
        text = _path("lexicons/mfd2/mfd2.0.dic").read_text(encoding="utf-8")
        parts = text.split("%")
        if len(parts) < 3:
            raise ValueError("mfd2.0.dic: expected a %-delimited category header")
        cats = dict(line.split("\t") for line in parts[1].strip().splitlines())
        rows = []
        for line in parts[2].strip().splitlines():
            word, *ids = line.split("\t")
            rows.extend((word.strip(), cats[i.strip()]) for i in ids)
        df = pd.DataFrame(rows, columns=["word", "category"]).drop_duplicates(ignore_index=True)
    elif source == "dicx":
        wide = pd.read_csv(_path("paper_iclr2026/corpora/moral-foundations-dictionary-20.dicx"), keep_default_na=False)
        long = wide.melt(id_vars="DicTerm", var_name="category", value_name="mark")
        long = long[long["mark"] == "X"]
        df = pd.DataFrame({"word": long["DicTerm"], "category": long["category"].str.lower().str.replace("_", ".")})
        df = df.sort_values(["word", "category"], ignore_index=True)
    else:
        raise ValueError(f"source must be 'dic' (mfd2.0.dic) or 'dicx' (LIWC-22 .dicx), not {source!r}")
    split = df["category"].str.split(".", expand=True)
    df["foundation"], df["moral"] = split[0], split[1]
    bad = ~df["foundation"].isin(MFD2_FOUNDATIONS) | ~df["moral"].isin(["virtue", "vice"])
    if bad.any():
        raise ValueError(f"MFD2 {source}: unexpected categories {sorted(df.loc[bad, 'category'].unique())}")
    return df[["word", "foundation", "moral", "category"]]


def load_mfd2(source: str = "dicx") -> pd.DataFrame:
    """Moral Foundations Dictionary 2.0, one row per (word, category): word, foundation (care|fairness|loyalty|
    authority|sanctity), moral (virtue|vice), category ('care.virtue', ...).

    source='dicx' (LIWC-22 form used by the ICLR paper): 2,040 rows, exactly one category per term.
    source='dic' (classic LIWC form): the same 2,040 terms in 2,103 rows, because some terms carry several
    categories there (e.g. 'apostate': loyalty.vice, authority.vice, sanctity.vice); the .dicx keeps one of them. Some entries are phrases ('golden rule').
    """
    return _mfd2(source).copy()


@functools.lru_cache(maxsize=None)
def _afinn(version: str) -> pd.DataFrame:
    files = {"165": "lexicons/afinn/AFINN-en-165.txt", "111": "lexicons/afinn/AFINN-111.txt"}
    if version not in files:
        raise ValueError(f"version must be '165' or '111', not {version!r}")
    rows = []
    for n, line in enumerate(_path(files[version]).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            word, score = line.rsplit("\t", 1)
            rows.append((word, int(score)))
    return pd.DataFrame(rows, columns=["word", "score"])


def load_afinn(version: str = "165") -> pd.DataFrame:
    """AFINN valence list: word (some are phrases), score (integer, -5..+5). '165': 3,382 entries; '111': 2,477."""
    return _afinn(str(version)).copy()


@functools.lru_cache(maxsize=None)
def _bing() -> pd.DataFrame:
    frames = []
    for sentiment, rel in [("positive", "lexicons/bing_hu_liu/positive-words.txt"),
                           ("negative", "lexicons/bing_hu_liu/negative-words-UTF8.txt")]:
        text = _path(rel).read_bytes().decode("utf-8")
        words = [w.strip() for w in text.splitlines() if w.strip() and not w.startswith(";")]
        frames.append(pd.DataFrame({"word": words, "sentiment": sentiment}))
    return pd.concat(frames, ignore_index=True)


def load_bing_liu() -> pd.DataFrame:
    """Hu & Liu opinion lexicon: word, sentiment (positive|negative). 2,006 positive + 4,783 negative."""
    return _bing().copy()


@functools.lru_cache(maxsize=None)
def _warriner() -> pd.DataFrame:
    df = pd.read_csv(_path("lexicons/warriner2013_vad/Ratings_Warriner_et_al.csv"), keep_default_na=False,
                     na_values=[""], index_col=0, low_memory=False)
    out = pd.DataFrame({"word": df["Word"].astype(str)})
    for dim, letter in [("valence", "V"), ("arousal", "A"), ("dominance", "D")]:
        out[dim] = df[f"{letter}.Mean.Sum"].astype(float)
        out[f"{dim}_sd"] = df[f"{letter}.SD.Sum"].astype(float)
        out[f"{dim}_n"] = df[f"{letter}.Rat.Sum"].astype(int)
    return out.reset_index(drop=True)


def load_warriner() -> pd.DataFrame:
    """Warriner et al. (2013) norms for 13,915 lemmas (1-9 scales, all raters pooled).

    Columns: word, valence, valence_sd, valence_n, arousal, arousal_sd, arousal_n, dominance, dominance_sd,
    dominance_n (mean, standard deviation and number of ratings). Subgroup columns of the raw file are omitted.
    """
    return _warriner().copy()


@functools.lru_cache(maxsize=None)
def _vader() -> pd.DataFrame:
    text = resources.files("vaderSentiment").joinpath("vader_lexicon.txt").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        word, mean, sd, ratings = line.strip("\r\n").split("\t")
        rows.append((word, float(mean), float(sd), json.loads(ratings)))
    df = pd.DataFrame(rows, columns=["word", "valence", "valence_sd", "ratings"])
    # The package builds a dict from these lines, so a repeated word keeps its last entry; do the same.
    return df.drop_duplicates("word", keep="last", ignore_index=True)


def load_vader() -> pd.DataFrame:
    """VADER valence norms from the vaderSentiment package (MIT): word (words, emoticons, slang), valence
    (mean of 10 ratings, -4..+4), valence_sd, ratings (the 10 raw ratings). 7,506 unique entries."""
    return _vader().copy()


VALUE_LEXICONS = ("big2", "mfd2", "mfd2_moral")


def value_lexicon(name: str = "big2") -> pd.DataFrame:
    """The words whose ranks make a value profile: word, category, lexicon, plus foundation and moral for MFD2.

    'big2': the 263 Big Two nouns, category Agency|Communion. 'mfd2': the 2,040 MFD2 terms (LIWC-22 .dicx, one
    category per term), category = <foundation>.<virtue|vice>. 'mfd2_moral': the same terms, category = virtue|vice.
    The one loader behind the value chapters and the fine-tuning evaluation.
    """
    if name == "big2":
        df = load_big_two("nouns")[["word", "category"]]
    elif name in ("mfd2", "mfd2_moral"):
        df = load_mfd2("dicx")[["word", "foundation", "moral", "category"]]
        if name == "mfd2_moral":
            df = df.assign(category=df["moral"])
    else:
        raise ValueError(f"unknown lexicon {name!r}; use one of {list(VALUE_LEXICONS)}, or pass your own DataFrame "
                         "with columns word, category")
    return df.assign(lexicon=name).drop_duplicates("word").reset_index(drop=True)

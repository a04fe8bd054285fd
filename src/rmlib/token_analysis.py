"""What kind of token sits in each tail of a reward distribution, and which tokens can be compared across tokenizers.

* :func:`token_features` labels every token with one category (special, whitespace, punctuation, number, word,
  subword, non-ASCII, other) plus simple flags (leading space, capitalised, length). "word" means an alphabetic
  token whose lower-cased text is an English dictionary word (BNC word forms plus Warriner lemmas, ~21,600 forms);
  other alphabetic ASCII tokens are "subword" pieces. The dictionary is a stated choice, not ground truth.
* :func:`tail_composition` compares category shares in the top-k and bottom-k tokens with the whole vocabulary
  (Wilson CIs from statsmodels), so "the bottom tail is mostly sub-word junk" becomes a number with an interval.
* :func:`shared_vocabulary` aligns sweeps of models with different tokenizers on the decoded text both vocabularies
  contain, which is the only item set on which their rankings can be correlated.
* :func:`item_categories` gives EloEverything items (Wikipedia-style titles) a form category and a Warriner
  valence band, for the misalignment-by-category analysis.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

from rmlib.stats import require_columns

__all__ = [
    "CATEGORIES",
    "english_dictionary",
    "token_category",
    "token_features",
    "show_whitespace",
    "tail_composition",
    "tail_composition_chart",
    "top_bottom_tokens",
    "shared_vocabulary",
    "vocabulary_overlap",
    "ITEM_FORMS",
    "item_form",
    "item_categories",
    "rank_trajectory_chart",
]

CATEGORIES = ("word", "subword", "number", "punctuation", "whitespace", "special", "non-ASCII", "other")
REPLACEMENT_CHAR = "\ufffd"  # what a lone byte of a multi-byte UTF-8 character decodes to


@functools.lru_cache(maxsize=1)
def english_dictionary() -> frozenset[str]:
    """Lower-cased English word forms: the BNC frequency list's forms and the Warriner et al. lemmas.

    wordfreq's top lists are not used: they contain sub-word pieces such as 'ing' and 'tion'.
    """
    from rmlib.data import load_bnc, load_warriner

    bnc = load_bnc()
    forms = set(bnc["form"].dropna().astype(str).str.lower())
    forms |= set(load_warriner()["word"].astype(str).str.lower())
    return frozenset(f for f in forms if f.isalpha())


def _is_punct_or_symbol(s: str) -> bool:
    return all(unicodedata.category(ch)[0] in "PS" for ch in s)


def token_category(text: str, is_special: bool = False, dictionary: Iterable[str] | None = None) -> str:
    """One of :data:`CATEGORIES` for a decoded token (leading/trailing whitespace ignored except for 'whitespace')."""
    if is_special:
        return "special"
    if not isinstance(text, str):
        raise TypeError(f"token text must be a str, got {type(text).__name__}: {text!r}")
    bare = text.strip()
    if not bare:
        return "whitespace"
    if REPLACEMENT_CHAR in bare:
        return "other"  # a byte fragment of a multi-byte character
    if bare.isdigit() and bare.isascii():
        return "number"
    if _is_punct_or_symbol(bare):
        return "punctuation"
    if bare.isalpha():
        if not bare.isascii():
            return "non-ASCII"
        words = english_dictionary() if dictionary is None else dictionary
        return "word" if bare.lower() in words else "subword"
    if not bare.isascii():
        return "non-ASCII"
    return "other"


def token_features(df: pd.DataFrame, text: str = "text", is_special: str | None = "is_special",
                   dictionary: Iterable[str] | None = None) -> pd.DataFrame:
    """A copy of ``df`` (one row per token) with columns category, leading_space, capitalised, all_caps, n_chars.

    ``leading_space``: the decoded text starts with whitespace (the token begins a new word mid-sentence).
    ``capitalised``: the first letter is upper case. ``n_chars``: length without surrounding whitespace.
    """
    require_columns(df, [text] + ([is_special] if is_special else []), "df")
    words = english_dictionary() if dictionary is None else frozenset(w.lower() for w in dictionary)
    texts = df[text].astype(str).tolist()
    special = df[is_special].astype(bool).tolist() if is_special else [False] * len(df)
    out = df.copy()
    out["category"] = pd.Categorical([token_category(t, s, words) for t, s in zip(texts, special)],
                                     categories=list(CATEGORIES))
    bare = [t.strip() for t in texts]
    out["leading_space"] = [t[:1].isspace() for t in texts]
    out["capitalised"] = [b[:1].isupper() for b in bare]
    out["all_caps"] = [len(b) > 1 and b.isupper() for b in bare]
    out["n_chars"] = [len(b) for b in bare]
    return out


_VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍"}


def show_whitespace(text: str) -> str:
    """Make a token's invisible characters visible for tables: ' ' -> '␣', newline -> '⏎', tab -> '⇥', other
    non-printable characters -> their \\u escape, the empty string -> '∅'."""
    text = str(text)
    if text == "":
        return "∅"
    return "".join(_VISIBLE.get(ch, ch if ch.isprintable() else ascii(ch)[1:-1]) for ch in text)


def tail_composition(df: pd.DataFrame, score: str = "reward", k: int = 100, feature: str = "category",
                     by: str | None = None, confidence: float = 0.95) -> pd.DataFrame:
    """Share of each ``feature`` value among the top-k, the bottom-k and all tokens (per ``by`` group).

    Columns: [by], tail (top|bottom|all), value, n, count, share, ci_low, ci_high, lift (share / share in all).
    CIs are Wilson intervals (statsmodels). The 'all' row is the baseline a tail should be read against.
    """
    from statsmodels.stats.proportion import proportion_confint

    require_columns(df, [score, feature] + ([by] if by else []), "df")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    groups = df.groupby(by, sort=False, observed=True) if by else [(None, df)]
    rows = []
    for key, g in groups:
        g = g.dropna(subset=[score])
        if len(g) < 2 * k:
            raise ValueError(f"{by}={key!r} has {len(g)} scored rows, fewer than 2k = {2 * k}; lower k")
        values = list(g[feature].cat.categories) if isinstance(g[feature].dtype, pd.CategoricalDtype) \
            else sorted(g[feature].dropna().unique().tolist())
        parts = {"top": g.nlargest(k, score), "bottom": g.nsmallest(k, score), "all": g}
        base = g[feature].value_counts(normalize=True)
        for tail, part in parts.items():
            counts = part[feature].value_counts()
            for v in values:
                c = int(counts.get(v, 0))
                lo, hi = proportion_confint(c, len(part), alpha=1 - confidence, method="wilson")
                share = c / len(part)
                b = float(base.get(v, 0.0))
                rows.append({**({by: key} if by else {}), "tail": tail, "value": v, "n": len(part), "count": c,
                             "share": share, "ci_low": float(lo), "ci_high": float(hi),
                             "lift": share / b if b > 0 else np.nan})
    return pd.DataFrame(rows)


def tail_composition_chart(comp: pd.DataFrame, *, by: str | None = None, title: str = "") -> alt.Chart:
    """Grouped bars of category shares (top, bottom, all) with Wilson CI whiskers; one row of panels per ``by``."""
    require_columns(comp, ["tail", "value", "share", "ci_low", "ci_high"] + ([by] if by else []), "comp")
    d = comp.assign(value=comp["value"].astype(str))
    order = ["top", "all", "bottom"]
    colors = alt.Scale(domain=order, range=["#4c78a8", "#bab0ac", "#e45756"])
    base = alt.Chart(d).encode(
        x=alt.X("value:N", title=None, sort=list(dict.fromkeys(d["value"]))),
        xOffset=alt.XOffset("tail:N", sort=order),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("share:Q", title="share of tokens", axis=alt.Axis(format="%")),
        color=alt.Color("tail:N", scale=colors, sort=order),
        tooltip=[*( [alt.Tooltip(f"{by}:N")] if by else []), "tail:N", "value:N", "count:Q", "n:Q",
                 alt.Tooltip("share:Q", format=".1%"), alt.Tooltip("ci_low:Q", format=".1%"),
                 alt.Tooltip("ci_high:Q", format=".1%")],
    )
    whiskers = base.mark_rule().encode(y="ci_low:Q", y2="ci_high:Q")
    chart = (bars + whiskers).properties(width=max(200, 16 * d["value"].nunique() * 3), height=180)
    if by:
        return chart.facet(row=alt.Row(f"{by}:N", title=None), title=title)
    return chart.properties(title=title)


def top_bottom_tokens(df: pd.DataFrame, k: int = 10, score: str = "reward", label: str = "text") -> pd.DataFrame:
    """Side-by-side top-k / bottom-k table of one sweep, tokens shown with visible whitespace.

    Columns: rank, top token, top <score>, bottom token, bottom <score>.
    """
    require_columns(df, [score, label], "df")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    d = df[[label, score]].dropna(subset=[score])
    if len(d) < 2 * k:
        raise ValueError(f"only {len(d)} scored tokens, fewer than 2k = {2 * k}; lower k")
    top, bot = d.nlargest(k, score), d.nsmallest(k, score)
    return pd.DataFrame({"rank": np.arange(1, k + 1),
                         "top token": [show_whitespace(t) for t in top[label]],
                         f"top {score}": top[score].to_numpy(),
                         "bottom token": [show_whitespace(t) for t in bot[label]],
                         f"bottom {score}": bot[score].to_numpy()})


def _clean_for_alignment(df: pd.DataFrame, key: str) -> pd.DataFrame:
    keep = ~df[key].astype(str).str.contains(REPLACEMENT_CHAR, regex=False) & (df[key].astype(str).str.strip() != "")
    if "is_special" in df.columns:
        keep &= ~df["is_special"].astype(bool)
    return df[keep]


def shared_vocabulary(frame: pd.DataFrame, *, model: str = "model", key: str = "text", value: str = "reward",
                      normalise: bool = False, agg: str = "max") -> pd.DataFrame:
    """Wide table (index: decoded token text; one column per model) over the texts every model's vocabulary has.

    Tokenizers differ, so token ids mean nothing across models; the decoded text is the common currency (the
    ICLR paper's 85,632-token intersection is built the same way). Special tokens, whitespace-only tokens and byte
    fragments (text containing U+FFFD) are dropped. Where several ids of one model decode to the same text,
    ``agg`` ('max', 'mean' or 'first') combines them. ``normalise=True`` keys on
    :func:`rmlib.data.normalise_token` (no leading space, lower case) instead, a looser match.
    """
    require_columns(frame, [model, key, value], "frame")
    if agg not in ("max", "mean", "first"):
        raise ValueError(f"agg must be 'max', 'mean' or 'first', got {agg!r}")
    d = _clean_for_alignment(frame, key)
    if normalise:
        from rmlib.data import normalise_token

        d = d.assign(**{key: d[key].map(normalise_token)})
        d = d[d[key] != ""]
    models = list(dict.fromkeys(d[model]))
    if len(models) < 2:
        raise ValueError(f"shared_vocabulary needs sweeps of at least 2 models, got {models}")
    wide = d.groupby([key, model], sort=False)[value].agg(agg).unstack(model)[models].dropna()
    if len(wide) < 3:
        raise ValueError(f"the models {models} share only {len(wide)} decoded tokens; nothing to compare")
    wide.index.name = "text"
    wide.columns.name = None
    return wide


def vocabulary_overlap(frame: pd.DataFrame, shared: pd.DataFrame, *, model: str = "model",
                       key: str = "text") -> pd.DataFrame:
    """Per model: n_tokens swept, n_distinct_texts (after cleaning), n_shared, share_shared."""
    require_columns(frame, [model, key], "frame")
    clean = _clean_for_alignment(frame, key)
    rows = []
    for m in shared.columns:
        n_tok = int((frame[model] == m).sum())
        n_txt = int(clean.loc[clean[model] == m, key].nunique())
        rows.append({"model": m, "n_tokens": n_tok, "n_distinct_texts": n_txt, "n_shared": len(shared),
                     "share_shared": len(shared) / n_txt if n_txt else np.nan})
    return pd.DataFrame(rows)


# --- EloEverything items ------------------------------------------------------------------------------------------

ITEM_FORMS = ("dictionary word", "other single word", "multi-word name", "multi-word phrase", "disambiguated title",
              "other")
_PAREN = re.compile(r"\(.+\)\s*$")


def item_form(item: str, dictionary: Iterable[str] | None = None) -> str:
    """Coarse form of an EloEverything item (a Wikipedia-style title), one of :data:`ITEM_FORMS`.

    'disambiguated title' ends in a parenthesis ('Oz (TV series)'); 'dictionary word' is one word of
    :func:`english_dictionary` ('Water'); 'other single word' is one capitalised word outside it, mostly names and
    rarer words ('Novosibirsk', 'Altruism'); 'multi-word name' has every content word capitalised ('Will Smith');
    'multi-word phrase' has a lower-case word ('Food allergy'); 'other' (numbers, '1960s').
    """
    if not isinstance(item, str) or not item.strip():
        raise ValueError(f"item must be a non-empty string, got {item!r}")
    s = item.strip()
    if _PAREN.search(s):
        return "disambiguated title"
    words = english_dictionary() if dictionary is None else dictionary
    parts = s.split()
    if len(parts) == 1:
        if s.isalpha() and s.lower() in words:
            return "dictionary word"
        if s[:1].isupper():
            return "other single word"
        return "other"
    content = [p for p in parts if p.lower() not in {"of", "the", "and", "a", "an", "in", "on", "for", "to", "de"}]
    if all(p[:1].isupper() or not p[:1].isalpha() for p in content):
        return "multi-word name"
    return "multi-word phrase"


def item_categories(items: Iterable[str], valence: pd.DataFrame | Mapping[str, float] | None = None,
                    dictionary: Iterable[str] | None = None) -> pd.DataFrame:
    """One row per distinct item: item, form (:func:`item_form`), valence (Warriner 1-9 where the lower-cased item
    is a rated lemma, else NaN) and valence_band (negative < 4 <= neutral <= 6 < positive, or 'unrated').

    ``valence`` defaults to :func:`rmlib.data.load_warriner`; pass a DataFrame (word, valence) or a mapping.
    """
    items = list(dict.fromkeys(items))
    if not items:
        raise ValueError("items is empty")
    if valence is None:
        from rmlib.data import load_warriner

        valence = load_warriner()
    if isinstance(valence, pd.DataFrame):
        require_columns(valence, ["word", "valence"], "valence")
        vmap = dict(zip(valence["word"].astype(str).str.lower(), valence["valence"].astype(float)))
    else:
        vmap = {str(k).lower(): float(v) for k, v in valence.items()}
    words = english_dictionary() if dictionary is None else frozenset(w.lower() for w in dictionary)
    v = np.array([vmap.get(str(i).strip().lower(), np.nan) for i in items], dtype=float)
    band = np.where(np.isnan(v), "unrated", np.where(v < 4, "negative", np.where(v > 6, "positive", "neutral")))
    return pd.DataFrame({"item": items, "form": [item_form(i, words) for i in items], "valence": v,
                         "valence_band": band})


def rank_trajectory_chart(traj: pd.DataFrame, order: list[str], *, item: str = "item", ranker: str = "ranker",
                          value: str = "rank percentile", title: str = "") -> alt.Chart:
    """One line per item through its rank under each ranker (humans, then models); click the legend to highlight.

    The y axis is reversed so that the best rank is at the top.
    """
    require_columns(traj, [item, ranker, value], "traj")
    if traj[item].nunique() * len(order) > 5000:
        raise ValueError("too many item x ranker points for an interactive chart; pick fewer items")
    sel = alt.selection_point(fields=[item], bind="legend")
    return (alt.Chart(traj, title=title).mark_line(point=True).encode(
        x=alt.X(f"{ranker}:N", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=200)),
        y=alt.Y(f"{value}:Q", scale=alt.Scale(reverse=True), title=f"{value} (top = best)"),
        color=alt.Color(f"{item}:N", legend=alt.Legend(labelLimit=260)),
        opacity=alt.condition(sel, alt.value(1.0), alt.value(0.15)),
        tooltip=[f"{item}:N", f"{ranker}:N", alt.Tooltip(f"{value}:Q", format=".1f")],
    ).add_params(sel).properties(width=max(300, 60 * len(order)), height=280))

"""A value card's charts, each the model beside the ten paper RMs: the agency − communion gap per prompt valence
(:func:`card_chart`) and the five foundations' median ranks (:func:`card_foundations_chart`), each with the model's
interval over words and prompts and its name, the model's Kendall τ
with each paper RM against the range the paper RMs span among themselves (:func:`card_agreement_chart`) and the
model on the heterogeneity chapter's map (:func:`card_map_chart`); the "Value cards" page's gaps of every card
at once (:func:`cards_overview_chart`); and a chapter's computed models beside the paper RMs in compute mode
(:func:`beside_chart`)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from rmbook.analysis.beside import families

__all__ = ["card_chart", "card_foundations_chart", "card_agreement_chart", "card_map_chart", "cards_overview_chart",
           "beside_chart"]

OWN = "this model"
WIDTH = 560  # fits the card page (52rem) with the legend below


def _family(card, nickname: str) -> str:
    return card.reference_families.get(nickname, "?") + "-based paper RM"


def _dots(data: pd.DataFrame, x: alt.X, y: alt.Y, title: str, tooltip: list, height: int,
          marked: tuple[str, ...] = (OWN,)) -> alt.Chart:
    """Paper RMs as dots coloured by base family, the ``marked`` groups (the card's model) as diamonds."""
    families = sorted(set(data["family"]) - set(marked)) + [m for m in marked if m in set(data["family"])]
    n_dots = len(families) - sum(m in families for m in marked)
    return alt.Chart(data, title=title).mark_point(filled=True, size=120, opacity=0.85).encode(
        x=x, y=y,
        color=alt.Color("family:N", scale=alt.Scale(domain=families), legend=alt.Legend(title=None, orient="bottom")),
        shape=alt.Shape("family:N", scale=alt.Scale(domain=families,
                                                    range=["circle"] * n_dots + ["diamond"] * (len(families) - n_dots)),
                        legend=None),
        tooltip=tooltip,
    ).properties(width=WIDTH, height=height)


def _interval(own: pd.DataFrame, x: str, y: str, label: str) -> alt.LayerChart:
    """The model's 95% intervals (over words and prompts, columns ci_low and ci_high) as bars through its diamonds,
    and its name beside them (#66 item 2: the charts showed points only, and "this model" unnamed)."""
    spans = own.dropna(subset=["ci_low", "ci_high"])
    bars = alt.Chart(spans).mark_rule(strokeWidth=2, color="#333").encode(
        x=alt.X("ci_low:Q"), x2="ci_high:Q", y=alt.Y(f"{y}:N"),
        tooltip=[alt.Tooltip("ci_low:Q", format=".1f", title="95% interval from"),
                 alt.Tooltip("ci_high:Q", format=".1f", title="to")])
    name = alt.Chart(own.assign(name=label)).mark_text(align="left", dx=8, dy=-10, fontSize=11).encode(
        x=alt.X(f"{x}:Q"), y=alt.Y(f"{y}:N"), text="name:N")
    return bars + name


def card_chart(card) -> alt.LayerChart:
    """One dot per paper RM (coloured by base family) and a diamond for the card's model with its 95% interval over
    words and prompts, per valence; hover a mark for its name and gap (``card``:
    :class:`rmbook.analysis.value_card.ValueCard`)."""
    ref = pd.DataFrame([{"model": g.model, "valence": g.valence, "gap": g.gap, "family": _family(card, g.model)}
                        for g in card.reference])
    own = pd.DataFrame([{"model": card.label, "valence": g.valence, "gap": g.gap, "family": OWN, "ci_low": g.ci_low,
                         "ci_high": g.ci_high} for g in card.gaps])
    dots = _dots(pd.concat([ref, own.drop(columns=["ci_low", "ci_high"])], ignore_index=True),
                 alt.X("gap:Q", title="agency − communion median rank (negative: agency words rank higher)"),
                 alt.Y("valence:N", title="prompt valence"),
                 f"{card.label}: agency − communion gap in median rank, beside the paper RMs",
                 ["model", "family", "valence", alt.Tooltip("gap:Q", format=".1f")], 120)
    return dots + _interval(own, "gap", "valence", card.label)


def card_foundations_chart(card) -> alt.LayerChart:
    """Each foundation × valence on its own row: the median rank of its terms for each paper RM and the model."""
    ref = pd.DataFrame([{"model": f.model, "panel": f"{f.foundation}, {f.valence}", "median_rank": f.median_rank,
                         "family": _family(card, f.model)} for f in card.foundation_reference])
    own = pd.DataFrame([{"model": card.label, "panel": f"{f.foundation}, {f.valence}", "median_rank": f.median_rank,
                         "family": OWN, "ci_low": f.ci_low, "ci_high": f.ci_high} for f in card.foundations])
    dots = _dots(pd.concat([ref, own.drop(columns=["ci_low", "ci_high"])], ignore_index=True),
                 alt.X("median_rank:Q", title=f"median rank among the {card.n_foundation_words} MFD2 terms "
                                              "(lower: ranked higher)", scale=alt.Scale(zero=False)),
                 alt.Y("panel:N", title="foundation, prompt valence"),
                 f"{card.label}: each moral foundation's median rank, beside the paper RMs",
                 ["model", "family", "panel", alt.Tooltip("median_rank:Q", format=".1f")], 300)
    return dots + _interval(own, "median_rank", "panel", card.label)


def card_agreement_chart(card) -> alt.Chart:
    """The model's τ with each paper RM (bars, by base family) and the lowest and highest τ between two paper RMs
    (dashed rules): a bar inside the rules agrees with that RM as much as paper RMs agree with each other."""
    bars = pd.DataFrame([{"reference": t.reference, "tau": t.tau, "family": _family(card, t.reference)}
                         for t in card.agreement])
    pairs = [t.tau for t in card.reference_agreement]
    span = pd.DataFrame({"tau": [min(pairs), max(pairs)],
                         "what": ["lowest τ between two paper RMs", "highest τ between two paper RMs"]})
    order = bars.sort_values("tau", ascending=False)["reference"].tolist()
    bar = alt.Chart(bars).mark_bar().encode(
        x=alt.X("tau:Q", title="Kendall τ with the model (within prompt, averaged over prompts)",
                scale=alt.Scale(domain=[min(0.0, bars["tau"].min(), min(pairs)), 1.0])),
        y=alt.Y("reference:N", sort=order, title="paper RM"),
        color=alt.Color("family:N", legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["reference", "family", alt.Tooltip("tau:Q", format=".3f")])
    rules = alt.Chart(span).mark_rule(strokeDash=[4, 3], color="#555").encode(
        x="tau:Q", tooltip=["what", alt.Tooltip("tau:Q", format=".3f")])
    return alt.layer(bar, rules, title=f"{card.label}: agreement with each paper RM on the Big Two nouns").properties(
        width=WIDTH, height=240)


def card_map_chart(card) -> alt.Chart:
    """The heterogeneity chapter's map with the model on it: classical MDS of 1 − Kendall τ over the card's
    EloEverything items, the paper RMs as dots by base family and the model as a diamond. Nearer: more alike."""
    m = card.map
    points = pd.DataFrame([{"model": card.label if p.label == card.model else p.label, "dim1": p.dim1, "dim2": p.dim2,
                            "family": OWN if p.label == card.model else _family(card, p.label)} for p in m.points])
    return _dots(points, alt.X("dim1:Q", title="map dimension 1"), alt.Y("dim2:Q", title="map dimension 2"),
                 f"{card.label} on the heterogeneity map ({m.n_items} EloEverything items; the two dimensions keep "
                 f"{m.explained:.0%} of the spread)",
                 ["model", "family", alt.Tooltip("dim1:Q", format=".2f"), alt.Tooltip("dim2:Q", format=".2f")], 320)


def cards_overview_chart(rows: pd.DataFrame, families: dict[str, str]) -> alt.Chart:
    """Every card's agency − communion gap per valence: the paper RMs as dots by base family (``families``: nickname
    -> family), each computed model as a diamond of its own colour (``rows``: the page's card rows)."""
    long = rows.melt(id_vars=["label", "source"], value_vars=["gap_negative", "gap_positive"], var_name="valence",
                     value_name="gap")
    long["valence"] = long["valence"].str.removeprefix("gap_")
    paper = long["source"] == "released scores"
    long["family"] = long["label"].where(~paper, long["label"].map(families).fillna("?") + "-based paper RM")
    computed = tuple(dict.fromkeys(long.loc[~paper, "label"]))
    return _dots(long.rename(columns={"label": "model"}),
                 alt.X("gap:Q", title="agency − communion median rank (negative: agency words rank higher)"),
                 alt.Y("valence:N", title="prompt valence"), "Every card's agency − communion gap in median rank",
                 ["model", "family", "valence", alt.Tooltip("gap:Q", format=".1f")], 120, marked=computed)


def beside_chart(found: dict, title: str, x_title: str) -> alt.Chart | None:
    """A chapter's measure for each paper RM (dots by base family) and each
    computed model (a diamond of its own colour), one row per measure (``found``: a chapter's
    ``beside_paper_rms(...)``; None when nothing was placed). Where each computed model was measured on its own
    words, with several computed models, each row names the model the paper RMs were measured beside."""
    own, ref = found["own"], found["reference"]
    if own.empty:
        return None
    several = "for_label" in ref.columns and own["label"].nunique() > 1
    ref = ref.assign(row=ref["measure"] + (", beside " + ref["for_label"] if several else ""),
                     family=ref["label"].map(families()).fillna("?") + "-based paper RM")
    own = own.assign(row=own["measure"] + (", beside " + own["label"] if several else ""), family=own["label"])
    data = pd.concat([ref, own], ignore_index=True).rename(columns={"label": "model"})
    rows = data["row"].nunique()
    return _dots(data[["model", "row", "estimate", "family"]], alt.X("estimate:Q", title=x_title),
                 alt.Y("row:N", title=None), title, ["model", "family", "row", alt.Tooltip("estimate:Q", format=".3f")],
                 40 * rows + 40, marked=tuple(dict.fromkeys(own["label"])))

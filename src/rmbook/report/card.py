"""A value card as a reader sees it: ``card.md``, a short section a model's author can paste into a model card, and
``card.html``, one offline page with the same sentences and the card's chart (Vega inlined, no network); every
number read from the typed card (:class:`rmbook.analysis.value_card.ValueCard`)."""
from __future__ import annotations

import html
import statistics
from collections import Counter

import pandas as pd
from markdown_it import MarkdownIt

from rmbook.analysis.terms import flag
from rmbook.analysis.value_card import IDENTITY_K, ValueCard
from rmbook.report.charts import (card_agreement_chart, card_chart, card_foundations_chart, card_map_chart,
                                  render_html)
from rmbook.report.masking import mask_text
from rmbook.report.prose import render
from rmlib.data import design_prompts, prompt_table, prompt_text
from rmlib.data.kinds import LM_LOGPROB, LM_MEAN_LOGPROB, is_lm_logprob

__all__ = ["card_markdown", "card_html", "cards_table", "card_links", "diffs_table", "shown_token", "ANCHORS",
           "MAP_SIDES", "null_sentence", "LM_CAVEAT", "lm_caveat"]

# the map's placement (of the model's mean τ with the paper RMs among theirs with each other) in words
MAP_SIDES = {"below every paper RM": "farther from the paper RMs than any of them is from the rest",
             "above every paper RM": "closer to the paper RMs than any of them is to the rest", "among them": "among them"}
ANCHORS = ("R-Gem-2B", "R-Lla-3B")  # the FAccT paper's love vs freedom pair: one developer, one data set
# what an LM's card says of its reward (#66 item 5), by the reward it used
_LM_REWARD = {
    LM_LOGPROB: "the summed log-probability of the answer's tokens under the prompt, which falls with an answer's "
                "length and rises with its frequency whatever it means (`--reward per-token` takes their mean "
                "instead)",
    LM_MEAN_LOGPROB: "the mean log-probability of the answer's tokens under the prompt (`--reward per-token`), which "
                     "takes the answer's length out of the sum; a frequent word's tokens are still likelier whatever "
                     "it means"}
LM_CAVEAT = ("**An implicit reward, not a reward model.** This model is a language model: its reward here is {what}. "
             "The ICLR paper's implicit reward is a log-probability *difference* against a reference model (instruct "
             "minus base), as is RewardBench's DPO path; `rmlib card` does not offer that reward (a card is of one "
             "model), so neither is this. Read the exposure and EloEverything sections as expected to follow "
             "frequency.")


def lm_caveat(reward_kind: str) -> str | None:
    """What an LM's card says of its reward, above its numbers; None for an RM's score."""
    return LM_CAVEAT.format(what=_LM_REWARD[reward_kind]) if is_lm_logprob(reward_kind) else None


def null_sentence(card: ValueCard) -> str:
    """The card's verdict against its null, in one paragraph: a warning when it cannot be told from noise."""
    n = card.null
    if n is None:
        return ""
    beyond = sorted(n.beyond)
    typical = beyond[len(beyond) // 2]
    rho = ("" if n.rho is None else f" and its ρ with people's ratings {n.rho:+.2f} ({n.rho_low:+.2f} to "
           f"{n.rho_high:+.2f}; the null's central 95%: {n.null_rho_low:+.2f} to {n.null_rho_high:+.2f})")
    agreement = (f"its highest Kendall τ with a paper RM is {n.tau:.2f} ({n.tau_reference}; 95% interval over words and "
                 f"prompts {n.tau_low:.2f} to {n.tau_high:.2f}; the null's upper 2.5%: {n.null_tau_high:.2f}){rho}")
    what = "gap and foundation numbers" if n.n_numbers > 2 else "gaps"
    count = (f"The null ({n.method}, {n.n_shuffles} times) puts {typical} of the card's {n.n_numbers} {what} beyond "
             f"every paper RM (median; at most {beyond[-1]}); this model puts {n.model_beyond}.")
    if n.indistinguishable:
        whom = "the paper RMs" + ("" if n.rho is None else " and with people")
        return (f"**Indistinguishable from noise.** Its agreement with {whom} is within what its own rewards give "
                f"when shuffled over the words: {agreement}. {count} Nothing on this card should be read as a value.")
    return f"**Against a null.** Unlike its rewards shuffled over the words, {agreement}. {count}"


def card_markdown(card: ValueCard) -> str:
    """The card's sentences (templates/card.md.j2)."""
    prompts = design_prompts(card.prompts).set_index("prompt_key")
    by_valence = {v: _prompt_list(g) for v, g in prompts.groupby("valence")}
    counts = Counter(card.reference_families.values())
    families = " and ".join(f"{n} {f}-based" for f, n in sorted(counts.items()))
    ranks = {(w.model, w.word): w.rank for w in card.words}
    anchors = [{"model": a, "love": ranks.get((a, "love")), "freedom": ranks.get((a, "freedom"))}
               for a in ANCHORS if (a, "love") in ranks]
    own = {"love": ranks.get((card.model, "love")), "freedom": ranks.get((card.model, "freedom"))}
    return render("card", "card", c=card, valence_prompts=by_valence, families=families,
                  greatest=prompts.loc[card.words_prompt, "prompt"], own=own, anchors=anchors,
                  foundations=_foundation_rows(card), tau=_agreement_summary(card),
                  n_ref=len(card.reference_families), framing=_slope_rows(card, "framing"),
                  exposure=_slope_rows(card, "exposure"), elo=_elo_row(card), vocab=_vocab_rows(card),
                  m=_map_row(card), ident=_identity_row(card), noise=_noise_row(card))


def _noise_row(card: ValueCard) -> dict:
    """What the card's header says of its noise and provenance: the checks that did not pass, the null's verdict,
    the paper RMs' base rate of "beyond", whether it follows the prompt, and, for an LM, the implicit-reward caveat
    with its length and frequency correlations."""
    refs = list(card.valence_rho_reference.values())
    follows = None
    if card.valence_rho is not None and refs:
        follows = {"rho": card.valence_rho, "low": min(refs), "high": max(refs), "barely": card.valence_rho > max(refs)}
    return {"checks": [c for c in card.checks if c.status in ("FAIL", "WARN")], "n_checks": len(card.checks),
            "null": null_sentence(card), "base": card.base_rate, "prov": card.provenance, "follows": follows,
            "lm": lm_caveat(card.reward_kind), "lm_rho": _lm_rows(card.lm)}


def _lm_rows(lm: dict[str, float]) -> list[dict]:
    """An LM's correlations with length and frequency (:func:`rmbook.chapters.value_cards.lm.lm_correlations`), one
    row per prompt valence."""
    valences = [v for v in ("positive", "negative") if f"length_{v}_min" in lm]
    return [{"valence": v, **{f"{n}_{end}": lm.get(f"{n}_{v}_{end}") for n in ("length", "frequency")
                              for end in ("min", "max")}} for v in valences]


def _prompt_list(prompts) -> str:
    """A valence's prompts as the card names them: each one when there are two, else how many and of what design."""
    if len(prompts) <= 2:
        return ", ".join(f"*{p}*" for p in prompts["prompt"])
    return (f"{len(prompts)} prompts such as *{prompts['prompt'].iloc[0]}*: the adjectives "
            f"{', '.join(dict.fromkeys(prompts['adjective']))} crossed with "
            f"{', '.join(dict.fromkeys(prompts['superlative']))}")


def _foundation_rows(card: ValueCard) -> list[dict]:
    """Each foundation × valence of a standard card with its placement and the paper RMs' range."""
    ref = {}
    for r in card.foundation_reference:
        ref.setdefault((r.foundation, r.valence), []).append(r.median_rank)
    places = {(p.foundation, p.valence): p for p in card.foundation_placements}
    return [{**f.model_dump(), **places[(f.foundation, f.valence)].model_dump(),
             "ref_low": min(ref[(f.foundation, f.valence)]), "ref_high": max(ref[(f.foundation, f.valence)])}
            for f in card.foundations]


def _slope_rows(card: ValueCard, name: str) -> list[dict]:
    """Each number of a standard card's ``name`` section (framing, exposure), with its placement and the paper RMs'
    range."""
    places = {p.measure: p for p in getattr(card, f"{name}_placements")}
    ref = getattr(card, f"{name}_reference")
    return [{**f.model_dump(), **places[f.measure].model_dump(),
             "ref_low": min(r.estimate for r in ref if r.measure == f.measure),
             "ref_high": max(r.estimate for r in ref if r.measure == f.measure)}
            for f in getattr(card, name)]


def _elo_row(card: ValueCard) -> dict | None:
    """The EloEverything agreement of a standard card, with its placement and the paper RMs' range."""
    if card.elo is None:
        return None
    rhos = [r.rho for r in card.elo_reference]
    items = {d: [f"{mask_text(i.item)} ({i.model_rank:.0f} vs {i.human_rank:.0f})" for i in card.elo_items
                 if i.direction == d] for d in ("over", "under")}
    return {**card.elo.model_dump(), **card.elo_placement.model_dump(), "ref_low": min(rhos), "ref_high": max(rhos),
            **items}


def _map_row(card: ValueCard) -> dict | None:
    """The model's place on the heterogeneity chapter's map, as its paragraph states it."""
    if card.map is None:
        return None
    m, refs = card.map, card.map.reference_mean_taus.values()
    best = next(iter(m.taus))
    return {"n_items": m.n_items, "prompt": prompt_text(m.prompt_key), "tau_low": min(m.taus.values()),
            "tau_high": max(m.taus.values()), "nearest": f"{best}, τ = {m.taus[best]:.2f}", "mean_tau": m.mean_tau,
            "ref_low": min(refs), "ref_high": max(refs), "side": m.placement.side,
            "side_text": MAP_SIDES[m.placement.side], "explained": m.explained}


def _identity_row(card: ValueCard) -> dict | None:
    """Where the model places the items that name groups of people, as its paragraph states it."""
    if card.identity is None:
        return None
    i, refs = card.identity, card.identity.reference.values()

    def shown(item) -> str:
        return f"{mask_text(flag(item.item, bool(getattr(item, 'pejorative_in_some_uses', False))))} " \
               f"({item.excess:+.0f})"

    k = min(IDENTITY_K, len(i.items) // 2)
    return {"n_identity": len(i.items), "n_items": i.n_items, "excess": i.excess, "ref_low": min(refs),
            "ref_high": max(refs), **i.placement.model_dump(),
            "examples": ", ".join(f"*{mask_text(x.item)}*" for x in sorted(i.items, key=lambda x: x.item)[:3]),
            "lowest": [shown(x) for x in i.items[:k]], "highest": [shown(x) for x in i.items[::-1][:k]]}


def shown_token(text: str, token_id: int) -> str:
    """A token as a table cell shows it: slurs masked, a leading or trailing space as ␣, in code; text that does not
    decode on its own (the replacement character) or is blank gets its id, so two such tokens never look alike."""
    shown = mask_text(text)
    core = shown.strip(" ")
    lead = len(shown) - len(shown.lstrip(" "))
    trail = len(shown) - len(shown.rstrip(" ")) if core else 0
    shown = "␣" * lead + core + "␣" * trail
    shown = shown.replace("|", "\\|").replace("`", "'").replace("\n", "\\n")
    tag = f" (id {token_id})" if "\ufffd" in text or not text.strip() else ""
    return f"`{shown}`{tag}"


def _vocab_rows(card: ValueCard) -> list[dict]:
    """Per prompt of a --vocab card: its text and the tokens rewarded most and least, as shown."""
    if not card.vocab:
        return []
    texts = prompt_table(list(dict.fromkeys(t.prompt_key for t in card.vocab))).set_index("prompt_key")["prompt"]
    rows = []
    for key in texts.index:
        side = {s: [shown_token(t.text, t.token_id) for t in sorted(card.vocab, key=lambda t: t.rank)
                    if t.prompt_key == key and t.side == s] for s in ("highest", "lowest")}
        rows.append({"prompt": texts[key], **side})
    return rows


def _agreement_summary(card: ValueCard) -> dict | None:
    """The model's τ with the paper RMs (most and least alike) beside the τ between two paper RMs."""
    if not card.agreement:
        return None
    pairs = sorted(t.tau for t in card.reference_agreement)
    best = card.agreement[0].tau
    where = "below" if best < pairs[0] else "above" if best > pairs[-1] else "within"
    return {"top": card.agreement[:3], "last": card.agreement[-1], "n_words": card.agreement[0].n_words,
            "n_prompts": card.agreement[0].n_prompts, "low": pairs[0], "high": pairs[-1],
            "median": statistics.median(pairs), "where": where}


def card_html(card: ValueCard) -> str:
    """One self-contained page: the card's sentences and its charts, drawn by the Vega bundle inlined once."""
    body = MarkdownIt("commonmark").enable("table").render(card_markdown(card))
    charts = [card_chart(card)]
    if card.kind == "standard":
        charts += [card_foundations_chart(card), card_agreement_chart(card)]
    if card.map is not None:
        charts.append(card_map_chart(card))
    chart = "\n".join(render_html(c.to_dict(), inline_bundle=i == 0) for i, c in enumerate(charts))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Value card: {html.escape(card.label)}</title>"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;"
            "line-height:1.5}code{background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse;font-size:.9em}"
            "td,th{border-bottom:1px solid #ddd;padding:.2em .5em;text-align:left}.rmlib-chart{max-width:100%;overflow-x:auto}"
            ".rmlib-chart .vega-embed{max-width:100%}.rmlib-chart svg.marks{max-width:100%;height:auto}"
            "</style></head><body>\n" + body + chart + "\n</body></html>\n")


def cards_table(rows) -> "pd.DataFrame":
    """The "Value cards" page's table: one row per card, eight short columns named for a reader, so it fits the text
    column (#43 item 3: twelve columns ran past it). A gap, its interval over words and prompts and its placement
    share a cell ("−12.3 (−40.1 to +8.0), among them"); the reward kind goes with where the rewards came from; the
    numbers beyond every model it is placed among go beside its null's count and its verdict (#66); the most alike
    paper RM carries its τ."""
    def gap(value, low, high, side) -> str:
        if value is None or value != value:
            return "–"
        interval = "" if low is None or low != low else f" ({low:+.1f} to {high:+.1f})"
        return f"{value:+.1f}{interval}, {side}"

    def rewards(source, kind) -> str:
        return source if source == "released scores" or kind is None or kind != kind else f"{source}: {kind}"

    def nearest(name, tau) -> str:
        return "–" if name is None or name != name else f"{name} (τ {tau:.2f})"

    def beyond(n, of, median, most, noise) -> str:
        if n is None or n != n:
            return "–"
        verdict = "; indistinguishable from noise" if noise is True else ""
        return f"{int(n)} of {int(of)} (null: {median:g}, at most {int(most)}){verdict}"

    col = lambda name: rows[name] if name in rows else [None] * len(rows)  # noqa: E731 (rows made before #66)
    return pd.DataFrame({
        "model": rows["label"],
        "rewards": [rewards(s, k) for s, k in zip(rows["source"], rows["reward_kind"])],
        "gap, negative prompts": [gap(*a) for a in zip(rows["gap_negative"], col("gap_negative_low"),
                                                       col("gap_negative_high"), rows["side_negative"])],
        "gap, positive prompts": [gap(*a) for a in zip(rows["gap_positive"], col("gap_positive_low"),
                                                       col("gap_positive_high"), rows["side_positive"])],
        "rank of love / freedom": [f"{_rank(a)} / {_rank(b)}" for a, b in zip(rows["love"], rows["freedom"])],
        "gap and foundation numbers beyond the range": [beyond(*a) for a in zip(
            col("n_beyond"), col("n_numbers"), col("null_beyond_median"), col("null_beyond_max"),
            col("indistinguishable"))],
        "most alike paper RM": [nearest(n, t) for n, t in zip(rows["nearest"], rows["nearest_tau"])],
        "ρ with people's Elo ratings": rows["elo_rho"]})


def card_links(cards) -> str:
    """A line of links to each card's section on the same page, in the order given: the anchor Sphinx gives the
    card's heading ("## Value card: <label>", docutils' ``make_id`` of its text), as inline HTML, which a Markdown
    output keeps (a MyST ``[text](#id)`` link to a heading inside an output is not a known target)."""
    from docutils.nodes import make_id

    links = [f'<a href="#{make_id(f"Value card: {c.label}")}">{html.escape(c.label)}</a>' for c in cards]
    return "Each card on this page: " + " · ".join(links) + "."


def _rank(x) -> str:
    return "–" if x is None or x != x else f"{x:g}"


def diffs_table(diffs) -> "pd.DataFrame":
    """The numbers of base-to-RM card diffs that have a verdict (paired bootstrap over the shared words and prompts),
    named for a reader."""
    judged = diffs[diffs["outside_noise"].notna()]
    interval = [f"{lo:+.1f} to {hi:+.1f}" for lo, hi in zip(judged["ci_low"], judged["ci_high"])]
    return judged.assign(outside=judged["outside_noise"].map({True: "yes", False: "no"}), interval=interval)[
        ["base", "rm", "measure", "a", "b", "change", "interval", "mdc", "outside"]].rename(columns={
            "rm": "trained RM", "a": "base LM's card", "b": "RM's card", "interval": "paired 95% interval",
            "mdc": "minimum detectable change", "outside": "outside the noise"})

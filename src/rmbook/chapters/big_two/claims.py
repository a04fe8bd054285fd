"""The claims the big_two chapter's results test (LOVE or freedom at the top, the Big Two by base family, and the
three-way interaction): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the
chapter's numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are
the macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the
chapter's "In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (ALPHA, Claim, Evidence, Part, evaluate_part as _part, fdr_floor, order_outcome,
                                    rank_band, sentences, share_outcome, test_outcome, FACCT, ICLR, ICLR_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("big_two")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


def love_freedom(e: Evidence) -> list[Part]:
    def model(nick, first, second):
        def fn():
            ranks = e.of("big_two").love_freedom
            one, two = ranks.where(nickname=nick, word=first), ranks.where(nickname=nick, word=second)
            r1, r2, n = one.rank, two.rank, one.n_words
            band = e.derive(f"ranks too close to call among {n} words", rank_band(n))
            return order_outcome(r1, r2, band=band), said("love_freedom", model=nick, first=first, first_rank=r1,
                                                          second=second, second_rank=r2, n_words=n, band=band,
                                                          too_close=abs(r1 - r2) <= band)
        return fn

    return [_part("R-Gem-2B puts love above freedom", e, model("R-Gem-2B", "love", "freedom")),
            _part("R-Lla-3B puts freedom above love", e, model("R-Lla-3B", "freedom", "love"))]


# The claimed sign of each Big Two panel's Gemma − Llama median-rank difference (a lower rank = ranked higher). Llama
# RMs prefer agency: under positive prompts they rank it higher (difference > 0); under negative prompts ("the worst
# thing") a preferred category is ranked *lower* as the worst answer, so the sign turns round. Communion mirrors it.
BIG_TWO_SIGNS = {("Agency", "positive"): +1, ("Agency", "negative"): -1,
                 ("Communion", "positive"): -1, ("Communion", "negative"): +1}


def big_two(e: Evidence) -> list[Part]:
    def category(cat):
        def fn():
            published = e.of("big_two").results["published"]
            rows = []
            for val in ("positive", "negative"):
                panel = published.panels.where(category=cat, valence=val)
                diff, p = panel.difference, panel.p_fdr
                rows.append((val, diff, p, diff * BIG_TWO_SIGNS[(cat, val)] > 0))
            k = sum(right and p < ALPHA for _, _, p, right in rows)
            against = sum((not right) and p < ALPHA for _, _, p, right in rows)
            floor, floor_text = fdr_floor(e, published)
            lean = ("both" if all(r[-1] for r in rows) else "neither" if not any(r[-1] for r in rows) else "one")
            panels = [{"valence": val, "difference": diff, "p_fdr": p,
                       "claimed": "positive" if BIG_TWO_SIGNS[(cat, val)] > 0 else "negative"}
                      for val, diff, p, _ in rows]
            return (share_outcome(k, len(rows), against=against), said("big_two", lean=lean, panels=panels, at=floor_text),
                    {"floor": floor})
        return fn

    return [_part("Llama RMs rank agency higher (positive prompts; lower under negative ones)", e,
                  category("Agency")),
            _part("Gemma RMs rank communion higher (positive prompts; lower under negative ones)", e,
                  category("Communion"))]


def three_way(e: Evidence) -> list[Part]:
    def models():
        t = e.of("big_two").three_way_models
        d, p, floor, sign, na, nb = t.difference, t.p, t.min_attainable_p, t.claimed_sign, t.n_a, t.n_b
        return (test_outcome(p, d * sign > 0, floor),
                said("three_way_models", difference=d, p=p, n_a=na, n_b=nb, floor=floor), {"floor": floor})

    def mixed():
        t = e.of("big_two").three_way
        term, est, p = t.term, t.estimate, t.p
        # With treatment coding (Gemma, Agency, negative as references) the term's estimate is the model-level
        # contrast above with its sign: positive is the claimed direction.
        return test_outcome(p, est > 0), said("three_way_mixed", term=term.replace("*", "×"), estimate=est, p=p)
    return [_part("family × category × valence (Big Two), models as the replicates", e, models),
            _part("the authors' mixed model, prompts as replicates", e, mixed, context=True)]


CLAIMS: list[Claim] = [
    Claim("love_freedom", FACCT, "RMs from one developer and one data set differ at the top: R-Gem-2B's best "
          "answer to 'the greatest thing ever' is LOVE, R-Lla-3B's is freedom.",
          "FAccT 2025, optimal tokens (figure 1); the ICLR paper's figure 3 contrasts the same two words",
          ("big_two",), "published scores of the Big Two nouns under 'What, in one word, is the greatest thing "
          "ever?' (whole words, not the single tokens of the paper)", "the two named RMs",
          "rank of each word among the dictionary words", love_freedom, place=7),
    Claim("big_two", ICLR, "Llama-based RMs prefer agency words, Gemma-based RMs communion words.",
          ICLR_ABSTRACT, ("big_two",), "published scores of the 10 RMs for the Big Two nouns, 54 prompts",
          "RMs (4 Gemma vs 6 Llama)", "permutation Welch test per category × valence panel, models as replicates, "
          "FDR across panels (the authors: Bonferroni)", big_two, place=1),
    Claim("three_way", ICLR, "The family difference depends on the category and on the prompt's valence (a "
          "family × category × valence interaction).", "ICLR 2026 main text; the authors' "
          "figures/generate_figure_1_and_A1.R fits lme(median rank ~ base_model*Category*prompt_framing, "
          "random = ~1|model_id)", ("big_two",), "published Big Two median ranks per RM × prompt × category",
          "RMs (4 Gemma vs 6 Llama), one interaction contrast per model",
          "exact permutation Welch test between the families of each model's (Agency − Communion median rank) "
          "under positive minus under negative prompts; the authors' mixed model, which counts prompts as "
          "replicates, is shown as context", three_way, place=3),
]

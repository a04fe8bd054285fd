"""How the claims of the FAccT 2025 paper (optimal and pessimal tokens) are judged from the chapters' numbers: one
evaluate function per claim, returning its parts (the catalogue pairs each with its sentence and source)."""
from __future__ import annotations

from rmbook.chapters.claims.evidence import Evidence, untestable
from rmbook.chapters.claims.evidence import evaluate_part as _part
from rmbook.chapters.claims.rules import (EXISTENCE, TAU_BAND, TAU_HETEROGENEOUS, Part, Said, exists_outcome,
                                          monte_carlo_straddles, order_outcome, rank_band, said, share_outcome, test_outcome, threshold_outcome)

__all__ = ["heterogeneity", "asymmetry", "framing", "exposure", "identity", "themes", "love_freedom"]


def heterogeneity(e: Evidence) -> list[Part]:
    def tau():
        agree = e.of("heterogeneity").runs["published"].agreement
        med, lo, hi = agree.tau_median, agree.tau_min, agree.tau_max
        outcome = threshold_outcome(med, TAU_HETEROGENEOUS, band=TAU_BAND)
        close = abs(med - TAU_HETEROGENEOUS) <= TAU_BAND
        return outcome, said("tau", median=med, low=lo, high=hi, limit=TAU_HETEROGENEOUS, band=TAU_BAND,
                             too_close=close)

    def rsa():
        # Base family and model size overlap (the Gemma-27B RMs share both), so the base design is tested with size
        # held fixed: a partial Mantel test, model labels permuted (heterogeneity chapter), two-sided and exact
        # over every relabelling of the 10 RMs (a Monte Carlo p carries its SE, and a p within 2 SE of alpha decides
        # nothing).
        run = e.of("heterogeneity").runs["published"]
        pm = run.designs.base_given_size
        design, given = pm.design, pm.given
        r, p, r_alone, r_designs, n = pm.r, pm.p, pm.r_design, pm.r_given_design, pm.n_models
        exact, se, n_perm = pm.exact, pm.p_se, pm.n_permutations
        other = run.partial_mantels.where(design=given, given=design)
        r_other, p_other = other.r, other.p
        # the sentence states the numbers only: a partial r that is not significant is not established, so it says
        # nothing about what the other design "explains" (#63 item 1)
        return (test_outcome(p, r > 0, se=se),
                said("partial_mantel", design=design, given=given, r=r, p=p, exact=exact, p_se=se,
                     n_permutations=n_perm, r_alone=r_alone, r_designs=r_designs, n_models=n, r_other=r_other,
                     p_other=p_other))

    return [_part("RMs rank items differently", e, tau), _part("similarity follows the base model", e, rsa)]


def asymmetry(e: Evidence) -> list[Part]:
    def skew():
        sk = e.of("distributions").skew_summary["published"]
        n, neg, pos = sk.n, sk.n_negative, sk.n_positive
        # "asymmetric" names no side: an RM skewed either way is asymmetric, and one whose interval spans 0 is
        # unclear (no interval shows a distribution symmetric), so nothing here can count against the claim
        k = e.derive("RMs clearly asymmetric, either way", neg + pos)
        return share_outcome(k, n, against=0), said("skew", n_negative=neg, n_positive=pos, n_asymmetric=k, n_models=n)

    return [_part("asymmetric score distributions (items)", e, skew,
                  one_sided="'asymmetric' names no side, and no interval shows a distribution symmetric"),
            untestable("full-vocabulary tokens", "the paper RMs' full-vocabulary token scores are not in the "
                        "released data; sweeping them needs the RM weights on a GPU")]


def _lexicon_outcome(outcomes: dict[str, str]) -> tuple[str, Said | None]:
    """One part judged with several lexicons: their common outcome, or 'mixed' with a note naming the lexicons on
    which it holds and fails (a result that rests on one lexicon's scoring of a few words is lexicon-dependent)."""
    kinds = set(outcomes.values())
    if len(kinds) == 1:
        return kinds.pop(), None
    by = [{"outcome": o, "lexicons": [s.upper() for s, v in outcomes.items() if v == o]}
          for o in ("holds", "mixed", "not established", "fails")]
    return "mixed", said("lexicon_dependent", by=[b for b in by if b["lexicons"]])


def framing(e: Evidence) -> list[Part]:
    def half(key, label):
        def fn():
            res = e.of("framing")
            src, by_source = res.main_source, res.halves_by_source
            halves = {o: getattr(by_source[o], key) for o in by_source.keys()}
            counts = {o: (h.holds, h.reversed, h.n) for o, h in halves.items()}
            outcomes = {o: share_outcome(k, n, against=rev) for o, (k, rev, n) in counts.items()}
            outcome, note = _lexicon_outcome(outcomes)
            cc = res.cell_counts_by_half.where(half=key)
            cells, ncells = cc.n_congruent_steeper, cc.n_cells
            lexicons = [{"name": o.upper(), "holds": k, "reversed": rev, "n_models": n, "outcome": outcomes[o]}
                        for o, (k, rev, n) in counts.items()]
            return (outcome, said("framing_half", half=label, lexicons=lexicons, n_cells_claimed=cells,
                                  n_cells=ncells, source=str(src).upper()), {"note": note})
        return fn

    return [_part("positive prompts: more sensitive to positive words", e, half("pos_prompts", "first half")),
            _part("negative prompts: more sensitive to negative words", e, half("neg_prompts", "second half"))]


def exposure(e: Evidence) -> list[Part]:
    def valence(pv):
        def fn():
            res = e.of("mere_exposure")
            verdicts = [(s, res.by_model.where(source=s, prompts=pv)) for s in res.matchings]
            rows = [(s, v.n_above, v.n_below, v.n_models) for s, v in verdicts]
            outcomes = {share_outcome(k, n, against=j) for _, k, j, n in rows}
            outcome = outcomes.pop() if len(outcomes) == 1 else "mixed"  # every matching agrees, or it is mixed
            return outcome, said("exposure", matchings=[{"source": s, "n_above": k, "n_below": j, "n_models": n}
                                                        for s, k, j, n in rows])
        return fn

    return [_part("positive prompts, every frequency matching", e, valence("positive")),
            _part("negative prompts, every frequency matching", e, valence("negative"))]


def identity(e: Evidence) -> list[Part]:
    def placement():
        # Items people rank high get negative gaps from any imperfect ranker (regression to the mean), so each
        # item's gap is compared with the gap expected at its human rank (identity_terms chapter).
        elo = e.of("identity_terms").elo
        below, above, n = elo.n_below, elo.n_above, elo.n_items
        below_raw, above_raw, bins = elo.n_below_raw, elo.n_above_raw, elo.human_bins
        # each item's interval over RMs is a unit: under error control the items below must beat chance
        return (exists_outcome(below, n=n),
                said("identity_placement", n_below=below, n_above=above, n_items=n, n_below_raw=below_raw,
                     n_above_raw=above_raw, n_bins=bins))

    return [_part("some identity terms placed below human ratings", e, placement, one_sided=EXISTENCE),
            untestable("caused by harmlessness training", "needs the RMs' training data or an ablation of "
                        "harmlessness data, which this book does not have")]


def themes(e: Evidence) -> list[Part]:
    # Per prompt: the "humans most prefer" prompt and the two "greatest" prompts undervalue different themes, and a
    # pooled test averages opposite effects away (the framing chapter's lesson). The prompts are the units of the
    # share rule: a theme holds where it is over-represented among the most undervalued items on (most, here all 3)
    # prompts, fails where it is under-represented on as many, is not established where no prompt shows either,
    # and is mixed otherwise, naming the prompts.
    def theme(t):
        def fn():
            by_prompt = e.of("elo_misalignment").topics.themes_by_prompt
            prompts = sorted({r.prompt for r in by_prompt})
            picked = {pr: by_prompt.where(topic=t, prompt=pr) for pr in prompts}
            # a direction whose Monte Carlo p (± 2 SE) straddles alpha is too close to call: unclear on that prompt
            rows = [(pr, "close" if monte_carlo_straddles(r.p_fdr, r.p_fdr_se) else r.direction, r.ratio, r.p_fdr,
                     r.p_fdr_se) for pr, r in picked.items()]
            over = [pr for pr, d, *_ in rows if d == "over"]
            under = [pr for pr, d, *_ in rows if d == "under"]
            outcome = share_outcome(len(over), len(rows), against=len(under))
            note = said("themes_mixed", over=over, under=under) if outcome == "mixed" else None
            return (outcome, said("themes", prompts=[{"prompt": pr, "direction": d, "ratio": ratio, "p_fdr": p,
                                                      "p_fdr_se": se} for pr, d, ratio, p, se in rows]),
                    {"note": note})
        return fn

    return [_part(t, e, theme(t)) for t in ("nature", "life", "technology", "human sexuality")]


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

"""The claims the framing chapter's results test (whether a prompt's valence makes RMs more sensitive to words of that
valence): each :class:`~rmbook.analysis.claims.Claim` with the function that judges its parts from the chapter's
numbers, read by attribute through :class:`~rmbook.analysis.claims.Evidence`. Their evidence sentences are the
macros of ``claims.md.j2`` beside this file. The claims page gathers ``CLAIMS`` by the chapter's name; the chapter's
"In brief" judges them on its own results."""
from __future__ import annotations

from rmbook.analysis.claims import (Claim, Evidence, Part, Said, evaluate_part as _part, sentences, share_outcome,
                                    FACCT, FACCT_ABSTRACT)

__all__ = ["CLAIMS"]

said = sentences("framing")  # this chapter's evidence sentences: the macros of claims.md.j2 beside this file


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


CLAIMS: list[Claim] = [
    Claim("framing", FACCT, "Under positive prompts RMs are more sensitive to positive words; under negative "
          "prompts, to negative words.", FACCT_ABSTRACT + " (iii) and the authors' announcement",
          ("framing",), "published scores of dictionary words under 54 prompts (word level; the paper used "
          "tokens)", "RMs", "per model, each half's contrast of oriented valence slopes with a word-clustered CI",
          framing, place=3),
]

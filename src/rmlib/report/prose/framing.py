"""The framing chapter's sentences: what was scored, the slopes, each half of the claim, and why lexicons differ."""
from __future__ import annotations

import pandas as pd

from rmlib.analysis.claims.rules import MOST
from rmlib.analysis.framing import FRAMING_HALVES, dictionary_word_counts

__all__ = ["level_markdown", "coverage_markdown", "slopes_markdown", "halves_markdown", "disagreement_markdown",
           "top_words_markdown"]


def level_markdown(scores: pd.DataFrame, mode: str) -> str:
    """What the run scored: published dictionary words, or token sweeps mapped to words (with coverage)."""
    if mode == "published":
        counts = dictionary_word_counts(scores)
        return (f"**Word level, published scores.** The released scores of {scores['model'].nunique()} of the "
                f"paper's reward models for {counts['total']:,} distinct dictionary words ({counts['big2']:,} only in "
                f"the Big Two nouns, {counts['mfd2']:,} only in MFD2, {counts['both']:,} in both, which get the mean "
                f"of their two scores), each scored as the whole answer, under {scores['prompt_key'].nunique()} "
                "prompts.")
    kinds = scores.groupby("model")["reward_kind"].first()
    cov = scores.attrs["coverage"]
    return (f"**Token level, computed now.** Full-vocabulary sweeps of {scores['model'].nunique()} model(s) under "
            f"{scores['prompt_key'].nunique()} prompts; a lexicon word is scored by the mean over the single tokens "
            "that spell it (' love', 'love', 'Love', ...). Words that need several tokens are not covered: "
            + ", ".join(f"{m}: {c:.0%} of lexicon words matched" for m, c in cov.items()) + ". Reward kinds: "
            + "; ".join(f"{m} = {k}" for m, k in kinds.items())
            + ". An LM's log-prob is an *implicit* reward, not a trained RM's score.")


def coverage_markdown(frames: dict[str, pd.DataFrame]) -> str:
    """How many positive and negative words each lexicon rates among the scored words (the first is the main one)."""
    main, *others = list(frames)
    n_side = frames[main].groupby("word_side")["word"].nunique()
    return (f"With **{main.upper()}**, {n_side.get('positive', 0):,} positive and {n_side.get('negative', 0):,} "
            f"negative words have a score; words the lexicon rates 0 or does not list are left out. "
            + " ".join(f"{s.upper()}: {frames[s]['word'].nunique():,} words." for s in others))


def slopes_markdown(contrast: pd.DataFrame, unit: str) -> str:
    med = contrast[["s_pp", "s_pn", "s_np", "s_nn"]].median()
    return (f"Across the {len(contrast)} model(s), the median oriented slopes ({unit} per valence point) are: under "
            f"positive prompts {med.s_pp:+.3f} on positive words and {med.s_np:+.3f} on negative words; under "
            f"negative prompts {med.s_nn:+.3f} on negative words and {med.s_pn:+.3f} on positive words. A negative "
            "oriented slope means the score moves *against* the prompt's direction across those words.")


def halves_markdown(summary: dict, by_half: pd.DataFrame, outcome: dict, contrast: pd.DataFrame, *, unit: str,
                    main: str) -> str:
    """Each half of the claim over models and over model × prompt cells, the per-model patterns and the verdicts."""
    n, pat = summary["n"], summary["patterns"]
    lo, hi = contrast["framing"].min(), contrast["framing"].max()
    return (
        f"**Positive prompts (first half).** Positive words get the steeper oriented slope with a CI above 0 for "
        f"**{summary['pos_prompts']['holds']} of {n}** models; the reverse for {summary['pos_prompts']['reversed']}. "
        f"Prompt by prompt, positive words are steeper in {by_half.loc['pos_prompts', 'n_congruent_steeper']} of "
        f"{by_half.loc['pos_prompts', 'n_cells']} model × prompt cells.\n\n"
        f"**Negative prompts (second half).** Negative words get the steeper slope with a CI above 0 for "
        f"**{summary['neg_prompts']['holds']} of {n}** models; the reverse for {summary['neg_prompts']['reversed']}. "
        f"Prompt by prompt: {by_half.loc['neg_prompts', 'n_congruent_steeper']} of "
        f"{by_half.loc['neg_prompts', 'n_cells']} cells.\n\n"
        f"**Per model:** " + "; ".join(f"{v} {k}" for k, v in pat.items()) + ". "
        + (f"Models whose halves have **opposite signs** show a tilt toward one kind of word under every prompt, not "
           f"an absence of effect: the pooled framing contrast averages such halves to near zero (here it ranges "
           f"from {lo:+.3f} to {hi:+.3f} {unit} per valence point). " if pat.get("opposite signs") else "")
        + f"By the claims page's rule (a half holds when at least {MOST:.0%} of models show it with their CI), with "
        f"{main.upper()} the first half: **{outcome['pos_prompts']}**; the second half: **{outcome['neg_prompts']}**.")


def _below_mean_note(down: pd.DataFrame) -> str:
    """Under 'worst' prompts a word below the mean is one the RMs do not offer as the worst thing; say so only of
    the words for which it is true (a positive value is not 'low')."""
    low = [w for w, v in zip(down["word"], down["mean_y"]) if v < 0]
    if not low:
        return ". "
    which = "all below the mean" if len(low) == len(down) else f"*{'*, *'.join(low)}* below the mean"
    return f" ({which}: the RMs do *not* offer them as answers to a 'worst' question). "


def disagreement_markdown(drivers: dict, ff: pd.DataFrame) -> str:
    """Why the lexicons disagree about the weaker half (:func:`rmlib.analysis.framing.sources.weak_half_drivers`)."""
    sources = list(drivers["summaries"])
    main, weak, summaries = sources[0], drivers["weak"], drivers["summaries"]
    n = summaries[main]["n"]
    down, extreme, named = drivers["down"], drivers["extreme"], drivers["named_extreme"]
    neg_side = extreme[extreme[main] < 0]
    return (
        f"**Why the lexicons disagree.** With {main.upper()} the weaker half is the one under "
        f"{FRAMING_HALVES[weak].split(':')[0]} ({summaries[main][weak]['holds']} of {n} models hold it; "
        + ", ".join(f"{s.upper()}: {summaries[s][weak]['holds']}" for s in sources[1:]) + "). "
        f"The words that pull it down most are *{'*, *'.join(down['word'])}*, with mean standardised rewards "
        f"{', '.join(f'{v:+.1f}' for v in down['mean_y'])} under those prompts"
        + (_below_mean_note(down) if weak == "neg_prompts" else ". ")
        + "A slope is moved most by the words at the ends of the valence scale. The negative ones among these words "
        "sit at a median of " + ", ".join(f"{neg_side[f'{s}_extreme'].median():.2f} ({s.upper()})" for s in sources)
        + " of the way in from each lexicon's negative end (0 = the most negative word it lists), while the words the "
        f"RMs do score highest as the worst thing (*{'*, *'.join(drivers['worst_named'])}*) sit at "
        + ", ".join(f"{named[f'{s}_extreme'].median():.2f} ({s.upper()})" for s in sources)
        + ". Whichever kind of word a lexicon puts at its extreme decides whether negative words look steep or flat "
        "under negative prompts.")


def top_words_markdown(top: dict, mode: str) -> str:
    return (
        f"By standardised reward (not oriented), the RMs' highest-scored answers among these words under positive "
        f"prompts are {', '.join(top['positive'][0])} and their lowest {', '.join(top['positive'][1])}. Under "
        f"negative prompts (the 'worst thing' questions) their highest-scored answers are "
        f"{', '.join(top['negative'][0])} and their lowest {', '.join(top['negative'][1])}; in the oriented score "
        "those lowest-scored answers are the ones at the top."
        + (" (The MFD2 lists obscenities and slurs among its *sanctity* and *care* vice terms; they appear here as "
           "data.)" if mode == "published" else ""))

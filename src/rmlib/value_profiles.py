"""Value profiles: how models rank the words of a value lexicon (Big Two, MFD2) under the 54-prompt design.

One long table shape serves both book modes, so the same statistics run on the authors' published RM scores and on
fresh scores from rmlib (RMs, or LMs whose summed answer log-prob is an implicit reward):

    model, nickname, family, reward_kind, prompt_key, prompt, adjective, valence, superlative, phrasing,
    word, category [, foundation, moral], score [, n_tokens]

``family`` is the *pretrained base* family the papers group by (Gemma | Llama | Qwen). For MFD2, ``category`` is
``<foundation>.<virtue|vice>`` so one factor carries the word-level design in both chapters.

Implicit rewards between two LMs (:func:`mwlr`, :func:`dpo_log_ratio`, :func:`implicit_reward_scores`) come out in
the same shape, one pseudo-model per pair.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from statsmodels.stats.multitest import multipletests

from rmlib import group_tests
from rmlib.stats import effect_size, require_columns

PUBLISHED = "RM score (published)"
MWLR_KIND = "MWLR implicit reward (LM pair)"
DPO_KIND = "DPO log-ratio implicit reward (instruct vs base)"
DICTIONARIES = ("big2", "mfd2")
DESIGN_COLUMNS = ["prompt_key", "prompt", "adjective", "valence", "superlative", "phrasing"]


# --------------------------------------------------------------------------- inputs

def lexicon(dictionary: str) -> pd.DataFrame:
    """The words a chapter scores: word, category (Big Two: Agency|Communion; MFD2: <foundation>.<virtue|vice>),
    plus foundation and moral for MFD2."""
    from rmlib.data import load_big_two, load_mfd2

    if dictionary == "big2":
        return load_big_two("nouns")[["word", "category"]]
    if dictionary == "mfd2":
        return load_mfd2("dicx")[["word", "foundation", "moral", "category"]]
    raise ValueError(f"dictionary must be one of {DICTIONARIES}, not {dictionary!r}")


def sample_lexicon(lex: pd.DataFrame, per_category: int | None, seed: int = 0) -> list[str] | None:
    """A seeded sample of ``per_category`` words from each category (None: all words, returned as None).

    Chapters share it so that the same seed gives the same words, and so the same cached scores."""
    if per_category is None:
        return None
    if per_category < 2:
        raise ValueError(f"per_category must be >= 2 (ranks and tests need spread), got {per_category}")
    return (lex.groupby("category", group_keys=False)
               .apply(lambda g: g.sample(min(per_category, len(g)), random_state=seed))["word"].tolist())


def describe_prompt_subset(prompt_keys: Sequence[str]) -> str:
    """'4 of the 54 prompts (adjectives best, greatest | worst, bad; superlative ever; phrasing one)'."""
    p = design_prompts(prompt_keys)
    uniq = lambda col: ", ".join(dict.fromkeys(p[col]))  # noqa: E731
    pos, neg = (", ".join(dict.fromkeys(p.loc[p["valence"] == v, "adjective"])) for v in ("positive", "negative"))
    return (f"{len(p)} of the 54 prompts (adjectives {pos} | {neg}; superlative {uniq('superlative')}; "
            f"phrasing {uniq('phrasing')})")


def instruct_evidence(model_id: str) -> dict:
    """Is this LM base or instruction-tuned? Checked from what ships with it, not from its name in our registry.

    Evidence: a chat template in the tokenizer (base models usually ship none), and for embedded GGUFs the file's own
    metadata (general.name, general.finetune). Returns model, family, chat_template_shipped, gguf_name,
    gguf_finetune, verdict (instruct | base | unknown), registry_says.
    """
    from rmlib.models import get_spec, load_tokenizer

    spec = get_spec(model_id)
    out = {"model": model_id, "family": spec.base, "chat_template_shipped": None, "gguf_name": None,
           "gguf_finetune": None, "registry_says": {True: "instruct", False: "base"}.get(spec.instruct, "unknown")}
    if spec.source == "tiny":
        out["verdict"] = "unknown (tiny random model)"
        return out
    if spec.source == "embedded":
        import gguf

        from rmlib.embedded import EMBEDDED

        fields = gguf.GGUFReader(EMBEDDED[spec.gguf].path()).fields
        get = lambda k: fields[k].contents() if k in fields else None  # noqa: E731
        out.update(gguf_name=get("general.name"), gguf_finetune=get("general.finetune"),
                   chat_template_shipped=get("tokenizer.chat_template") is not None)
    else:
        out["chat_template_shipped"] = bool(getattr(load_tokenizer(model_id), "chat_template", None))
    tags = " ".join(str(x) for x in (out["gguf_name"], out["gguf_finetune"]) if x).lower()
    named = any(t in tags.replace("-", " ").split() for t in ("instruct", "it", "chat", "awq instruct"))
    named = named or "instruct" in tags
    out["verdict"] = "instruct" if (out["chat_template_shipped"] or named) else "base"
    return out


def design_prompts(prompt_keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The factorial-54 prompts (prompt_key, prompt, adjective, valence, superlative, phrasing), optionally a subset."""
    from rmlib.data import load_prompts

    prompts = load_prompts("factorial54")
    if prompt_keys is None:
        return prompts
    keys = list(prompt_keys)
    unknown = sorted(set(keys) - set(prompts["prompt_key"]))
    if unknown or not keys:
        raise ValueError(f"prompt_keys {unknown or keys} are not factorial-54 keys such as 'best_ever_one' "
                         f"(<adjective>_<superlative>_<phrasing>); see rmlib.data.load_prompts('factorial54')")
    out = prompts.set_index("prompt_key").loc[keys].reset_index()
    if out["valence"].nunique() < 2:
        raise ValueError(f"prompt_keys {keys} hold only {out['valence'].iloc[0]} prompts; the design needs both "
                         "positive (best/greatest/good) and negative (worst/bad/terrible) ones")
    return out


def model_info(models: Sequence[str]) -> pd.DataFrame:
    """One row per model id: model, nickname, family (base family), kind (rm|lm), source, instruct (registry)."""
    from rmlib.models import get_spec

    rows = []
    for m in models:
        s = get_spec(m)
        rows.append({"model": m, "nickname": s.nickname or m, "family": s.base if s.base != "unknown" else s.family,
                     "kind": s.kind, "source": s.source, "instruct": s.instruct})
    return pd.DataFrame(rows)


def _ordered(df: pd.DataFrame, dictionary: str) -> pd.DataFrame:
    word_cols = ["word", "category"] + (["foundation", "moral"] if dictionary == "mfd2" else [])
    cols = ["model", "nickname", "family", "reward_kind", *DESIGN_COLUMNS, *word_cols, "score"]
    cols += [c for c in ("n_tokens",) if c in df.columns]
    return df[cols].reset_index(drop=True)


def published_scores(dictionary: str = "big2", models: Sequence[str] | None = None,
                     prompt_keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The authors' released RM scores in the long value-profile shape (reward_kind = 'RM score (published)')."""
    from rmlib.data import load_dictionary_scores

    if dictionary not in DICTIONARIES:
        raise ValueError(f"dictionary must be one of {DICTIONARIES}, not {dictionary!r}")
    df = load_dictionary_scores(dictionary)
    if models is not None:
        models = list(models)
        unknown = sorted(set(models) - set(df["model"]))
        if unknown or not models:
            raise ValueError(f"models {unknown or models} have no published {dictionary} scores; choose from "
                             f"{sorted(df['model'].unique())}")
        df = df[df["model"].isin(models)]
    if prompt_keys is not None:
        keys = design_prompts(prompt_keys)["prompt_key"]
        df = df[df["prompt_key"].isin(keys)]
    if dictionary == "mfd2":  # the loader's category is already <foundation>.<moral>
        df = df.dropna(subset=["category"])
    return _ordered(df.assign(reward_kind=PUBLISHED), dictionary)


def compute_scores(models: Sequence[str], dictionary: str = "big2", prompt_keys: Sequence[str] | None = None,
                   words: Sequence[str] | None = None, dtype: str | None = None, progress: bool = False,
                   head: str | None = None) -> pd.DataFrame:
    """Fresh scores: each lexicon word as the whole answer to each design prompt, via rmlib.compute.answer_rewards.

    RMs give their reward; LMs give the summed log-prob of the word's tokens under the same chat template
    (reward_kind says which); ``head='lm'`` forces log-probs for hub LMs the registry would load as RMs.
    ``words`` restricts the lexicon (tests, quick looks). Cached and resumable like every
    rmlib score.
    """
    from rmlib.compute import answer_rewards

    models = list(models)
    if not models:
        raise ValueError("models is empty; give at least one model id (e.g. 'smollm2-135m-instruct')")
    lex = lexicon(dictionary)
    if words is not None:
        words = list(words)
        missing = sorted(set(words) - set(lex["word"]))
        if missing:
            raise ValueError(f"words {missing[:10]} are not in the {dictionary} lexicon")
        lex = lex[lex["word"].isin(words)]
    prompts = design_prompts(prompt_keys)
    info = model_info(models)
    frames = []
    if head not in (None, "lm"):
        raise ValueError(f"head must be None (the registry's kind) or 'lm' (force log-probs), not {head!r}")
    for m in models:
        if head == "lm":  # hub LMs (e.g. a base/instruct pair) are not in the registry as LMs
            from rmlib.compute import LM_LOGPROB
            from rmlib.models import load_model
            from rmlib.sweep import score_answers

            lm = load_model(m, head="lm", dtype=dtype)
            r = score_answers(lm, prompts["prompt"].tolist(), lex["word"].tolist(), progress=progress)
            r = r.assign(reward=r["logprob"], reward_kind=LM_LOGPROB)
        else:
            r = answer_rewards(m, prompts["prompt"].tolist(), lex["word"].tolist(), dtype=dtype, progress=progress)
        r = r.rename(columns={"answer": "word"})[["prompt", "word", "n_tokens", "reward", "reward_kind"]]
        frames.append(r.assign(model=m).rename(columns={"reward": "score"}))
    out = pd.concat(frames, ignore_index=True)
    out = (out.merge(info[["model", "nickname", "family"]], on="model", validate="many_to_one")
              .merge(prompts, on="prompt", validate="many_to_one")
              .merge(lex, on="word", validate="many_to_one"))
    return _ordered(out, dictionary)


# --------------------------------------------------------------------------- implicit rewards

def mwlr(logp1, logp2):
    """Mixture-weighted log ratio ½(p₁+p₂)(log p₁ − log p₂) from (summed) log-probs.

    Positive when model 1 gives the word more probability; antisymmetric in its arguments; weighted towards words
    that at least one model finds likely, so rare strings with large but meaningless ratios do not dominate.
    """
    a, b = np.asarray(logp1, dtype=float), np.asarray(logp2, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"mwlr: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    if np.any(a > 1e-6) or np.any(b > 1e-6):
        raise ValueError("mwlr: inputs must be log-probabilities (<= 0); got positive values (raw logits?)")
    return 0.5 * (np.exp(a) + np.exp(b)) * (a - b)


def dpo_log_ratio(logp_policy, logp_reference, beta: float = 1.0):
    """DPO's implicit reward β (log π(y|x) − log π_ref(y|x)) for an instruct (policy) model and its base."""
    if beta <= 0:
        raise ValueError(f"beta must be positive, got {beta}")
    a, b = np.asarray(logp_policy, dtype=float), np.asarray(logp_reference, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"dpo_log_ratio: log-prob arrays differ in shape {a.shape} vs {b.shape}")
    return beta * (a - b)


def implicit_reward_scores(lm_scores: pd.DataFrame, pairs: Sequence[tuple[str, str]], kind: str = "mwlr",
                           beta: float = 1.0) -> pd.DataFrame:
    """Implicit rewards from LM log-prob tables (output of :func:`compute_scores` on LMs), one pseudo-model per pair.

    kind='mwlr': pairs are (LM of family A, LM of family B); model = 'MWLR(A‖B)', family = 'A−B' (positive = A
    prefers the word). kind='dpo': pairs are (instruct model, its base); model = 'DPO(instruct/base)', family = the
    shared family.
    """
    if kind not in ("mwlr", "dpo"):
        raise ValueError(f"kind must be 'mwlr' or 'dpo', not {kind!r}")
    require_columns(lm_scores, ["model", "nickname", "family", "reward_kind", "prompt_key", "word", "score"])
    not_lm = lm_scores.loc[~lm_scores["reward_kind"].str.startswith("LM log-prob"), "model"].unique()
    if len(not_lm):
        raise ValueError(f"implicit rewards need LM log-probs; {list(not_lm)} are scored as "
                         f"{lm_scores.loc[lm_scores['model'].isin(not_lm), 'reward_kind'].iloc[0]!r}")
    keys = [c for c in lm_scores.columns if c not in ("model", "nickname", "family", "reward_kind", "score",
                                                      "n_tokens")]
    frames = []
    for a, b in pairs:
        if a == b:
            raise ValueError(f"pair ({a!r}, {b!r}) compares a model with itself")
        sa, sb = (lm_scores[lm_scores["model"] == m] for m in (a, b))
        for m, s in ((a, sa), (b, sb)):
            if s.empty:
                raise ValueError(f"model {m!r} is not in the log-prob table (has {sorted(lm_scores['model'].unique())})")
        fa, fb = sa["family"].iloc[0], sb["family"].iloc[0]
        na, nb = sa["nickname"].iloc[0], sb["nickname"].iloc[0]
        if kind == "mwlr" and fa == fb:
            raise ValueError(f"MWLR compares families; {a} and {b} are both {fa}")
        if kind == "dpo" and fa != fb:
            raise ValueError(f"a DPO log-ratio needs an instruct model and its own base; {a} is {fa}, {b} is {fb}")
        j = sa[keys + ["score"]].merge(sb[["prompt_key", "word", "score"]], on=["prompt_key", "word"],
                                       suffixes=("_a", "_b"), validate="one_to_one")
        if len(j) != len(sa) or len(j) != len(sb):
            raise ValueError(f"{a} and {b} were not scored on the same prompts and words")
        if kind == "mwlr":
            score = mwlr(j["score_a"], j["score_b"])
            label, family, rk = f"MWLR({na}‖{nb})", f"{fa}−{fb}", MWLR_KIND
        else:
            score = dpo_log_ratio(j["score_a"], j["score_b"], beta)
            label, family, rk = f"DPO({na}/{nb})", fa, DPO_KIND
        frames.append(j[keys].assign(model=label, nickname=label, family=family, reward_kind=rk, score=score))
    if not frames:
        raise ValueError("pairs is empty")
    out = pd.concat(frames, ignore_index=True)
    dictionary = "mfd2" if "foundation" in out.columns else "big2"
    return _ordered(out, dictionary)


# --------------------------------------------------------------------------- statistics

def family_analysis(scores: pd.DataFrame, *, by: Sequence[str] = ("category", "valence"),
                    families: Sequence[str] = ("Gemma", "Llama"), n_resamples: int = 9999, seed: int = 0,
                    alpha: float = 0.05) -> dict:
    """Every family test of the chapters on one long score table.

    Returns a dict of tables:

    - ``median_ranks``: model, family, prompt_key, *by, median_rank, n_words (rank 1 = highest score in its
      model × prompt);
    - ``model_medians``: the same averaged over prompts (one point per model in the charts);
    - ``permutation``: per panel, the two ``families`` compared by a permutation Welch t-test, FDR (BH) across panels;
    - ``effects``: per panel, Hedges' g (first minus second family, on ranks: negative = first family ranks the
      category higher) with a bootstrap CI;
    - ``posthoc``: Welch t-tests between every pair of families present, FDR across all;
    - ``anova``: Type-II ANOVA median_rank ~ category × valence × model (prompts as replicates);
    - ``mixed``: median_rank ~ family × category × valence + (1 | model), or None;
    - ``unit``: 'model' when each compared family has >= 2 models, else 'prompt' (then the tests compare these
      particular models, not families); ``notes``: why a test was skipped or changed.
    """
    by = list(by)
    require_columns(scores, ["model", "family", "prompt_key", "word", "score", *by])
    if len(by) != 2:
        raise ValueError(f"by must name a word-level and a prompt-level factor (e.g. ['category', 'valence']), got {by}")
    med = group_tests.median_ranks(scores, prompt="prompt_key", by=by, per_prompt=True)
    fam = scores.drop_duplicates("model").set_index("model")["family"]
    med.insert(1, "family", med["model"].map(fam))
    per_family = med.groupby("family")["model"].nunique()
    missing = [f for f in families if f not in per_family.index]
    if missing:
        raise ValueError(f"families {missing} have no model in the table (families present: {dict(per_family)})")
    notes: list[str] = []
    two = med[med["family"].isin(families)]
    unit: str | None = "model"
    if per_family[list(families)].min() < 2:
        unit = None
        notes.append(f"only {per_family[list(families)].min()} model in a compared family: tests use prompts as "
                     "replicates and so compare these particular models, not their families")
    model_medians = (med.groupby(["model", "family", *by], observed=True, as_index=False)["median_rank"].mean())
    perm = group_tests.permutation_tests(two, group="family", panels=by, unit=unit, levels=families,
                                         n_resamples=n_resamples, alpha=alpha, seed=seed)
    flat = ~np.isfinite(perm["t"])
    if flat.any():  # identical values in both groups: no evidence of a difference, not p = 0
        perm.loc[flat, "p"] = 1.0
        perm["reject"], perm["p_fdr"] = multipletests(perm["p"], alpha=alpha, method="fdr_bh")[:2]
        notes.append(f"{int(flat.sum())} panel(s) have no spread within either family (t undefined); "
                     "their p is set to 1")
    units = two if unit is None else two.groupby(["model", "family", *by], as_index=False)["median_rank"].mean()
    eff_rows = []
    for key, g in units.groupby(by, observed=True, sort=True):
        a = g.loc[g["family"] == families[0], "median_rank"]
        b = g.loc[g["family"] == families[1], "median_rank"]
        eff_rows.append({**dict(zip(by, key)), **effect_size(a, b, "hedges_g", seed=seed)})
    effects = pd.DataFrame(eff_rows)
    posthoc = (group_tests.posthoc_welch(med, between="family", panels=by, unit=unit, alpha=alpha)
               if med["family"].nunique() >= 2 else None)
    anova = None
    if med["model"].nunique() >= 2:
        anova = group_tests.anova_type2(med, factors=(by[0], by[1], "model"))
    else:
        notes.append("one model only: no ANOVA with a model factor")
    mixed = None
    try:
        mixed = group_tests.mixed_model(two, value="median_rank", fixed=("family", *by), groups="model", alpha=alpha)
    except ValueError as e:
        notes.append(f"mixed model skipped: {e}")
    return {"median_ranks": med, "model_medians": model_medians, "permutation": perm, "effects": effects,
            "posthoc": posthoc, "anova": anova, "mixed": mixed, "unit": unit or "prompt", "notes": notes}


def word_contrast(scores: pd.DataFrame, *, group: str = "category", panels: Sequence[str] = ("model", "valence"),
                  levels: Sequence[str] | None = None, n_resamples: int = 9999, seed: int = 0,
                  alpha: float = 0.05) -> pd.DataFrame:
    """Within one (pseudo-)model, do the words of one group rank above the other's? Words are the replicates.

    Each word's rank within its model × prompt is averaged over the prompts of a panel; the two ``group`` levels
    are compared by a permutation Welch test per panel, FDR across panels. Used when a family has one model (the
    embedded LMs, MWLR pairs): it tests that model, not a family. Returns the permutation table plus
    g_ci_low/g_ci_high (bootstrap CI of Hedges' g; negative g = first level ranked higher).
    """
    panels = list(panels)
    require_columns(scores, ["model", "prompt_key", "word", "score", group, *panels])
    ranked = group_tests.within_prompt_ranks(scores, prompt="prompt_key")
    per_word = ranked.groupby([*panels, group, "word"], observed=True, as_index=False)["rank"].mean()
    res = group_tests.permutation_tests(per_word, value="rank", group=group, panels=panels, unit=None, levels=levels,
                                        n_resamples=n_resamples, alpha=alpha, seed=seed)
    cis = []
    for _, row in res.iterrows():
        g = per_word
        for p in panels:
            g = g[g[p] == row[p]]
        e = effect_size(g.loc[g[group] == row["group_a"], "rank"], g.loc[g[group] == row["group_b"], "rank"],
                        "hedges_g", n_resamples=999, seed=seed)
        cis.append((e["ci_low"], e["ci_high"]))
    res["g_ci_low"], res["g_ci_high"] = zip(*cis)
    return res


def word_ranks(scores: pd.DataFrame, words: Sequence[str], prompt_key: str = "greatest_ever_one") -> pd.DataFrame:
    """Where named words rank (1 = the model's highest score) among all the words each model scored under one
    prompt, e.g. 'love' and 'freedom' under "What, in one word, is the greatest thing ever?".

    Returns model, nickname, family, word, rank (ties averaged), n_words, score; words a model did not score are
    absent (the caller reports them).
    """
    require_columns(scores, ["model", "nickname", "family", "prompt_key", "word", "score"])
    d = scores[scores["prompt_key"] == prompt_key]
    if d.empty:
        raise ValueError(f"no scores under prompt {prompt_key!r} (have {sorted(scores['prompt_key'].unique())[:6]} ...)")
    d = d.groupby(["model", "nickname", "family", "word"], as_index=False)["score"].mean()
    d["rank"] = d.groupby("model")["score"].rank(ascending=False, method="average")
    d["n_words"] = d.groupby("model")["word"].transform("size")
    out = d[d["word"].isin(list(words))]
    return out[["model", "nickname", "family", "word", "rank", "n_words", "score"]].reset_index(drop=True)


def three_way_term(summary: dict) -> dict | None:
    """The family x category x valence term of the mixed model in :func:`summarise` output: {term, estimate,
    ci_low, ci_high, p}; None when the model was not fitted or has several such terms (use the table then)."""
    terms = (summary.get("mixed") or {}).get("terms", {})
    three = [t for t in terms if t.count(":") == 2]
    if len(three) != 1:
        return None
    return {"term": three[0], **terms[three[0]]}


def contrast_lines(tests: pd.DataFrame, a: str, b: str) -> list[str]:
    """One markdown bullet per row of :func:`word_contrast` output: which group ranks higher, with g, CI and FDR p."""
    require_columns(tests, ["model", "reward_kind", "valence", "mean_a", "mean_b", "hedges_g", "g_ci_low",
                            "g_ci_high", "p_fdr", "reject"])
    lines = []
    for r in tests.itertuples():
        higher = a if r.mean_a < r.mean_b else b
        lines.append(f"- {r.model} ({r.reward_kind}), {r.valence} prompts: {higher} words rank higher "
                     f"(mean rank {r.mean_a:.1f} vs {r.mean_b:.1f}; g = {r.hedges_g:.2f} "
                     f"[{r.g_ci_low:.2f}, {r.g_ci_high:.2f}]; FDR p = {r.p_fdr:.3g}"
                     f"{', significant' if r.reject else ''}).")
    return lines


def describe_panel(row: pd.Series, by: Sequence[str], first: str, second: str) -> str:
    """One sentence for a permutation-test row: which family ranks the category higher, p and FDR-adjusted p."""
    where = ", ".join(f"{row[b]}" for b in by)
    higher = first if row["mean_a"] < row["mean_b"] else second
    return (f"{where}: {higher} ranks it higher (median rank {row['mean_a']:.1f} vs {row['mean_b']:.1f}; "
            f"t = {row['t']:.2f}, p = {row['p']:.3g}, FDR p = {row['p_fdr']:.3g}, "
            f"{'significant' if row['reject'] else 'not significant'} at FDR 0.05)")


# --------------------------------------------------------------------------- reporting

def summarise(res: dict, families: Sequence[str] = ("Gemma", "Llama")) -> dict:
    """Plain numbers from :func:`family_analysis` for prose and for the chapter's results JSON."""
    perm = res["permutation"]
    med = res["median_ranks"]
    fam_counts = med.groupby("family")["model"].nunique().to_dict()
    n_a, n_b = int(perm["n_a"].iloc[0]), int(perm["n_b"].iloc[0])
    out = {"unit": res["unit"], "models_per_family": {k: int(v) for k, v in fam_counts.items()},
           # exact two-sided permutation test: the observed labelling and its mirror image are the most extreme
           "min_attainable_p": float(min(1.0, 2 / math.comb(n_a + n_b, n_a))),
           "n_prompts": int(med["prompt_key"].nunique()), "n_panels": int(len(perm)),
           "n_significant_raw": int((perm["p"] < 0.05).sum()), "n_significant_fdr": int(perm["reject"].sum()),
           "min_p": float(perm["p"].min()), "min_p_fdr": float(perm["p_fdr"].min()),
           "panels": perm.drop(columns=["group_a", "group_b"]).to_dict(orient="records"), "notes": list(res["notes"])}
    if res["anova"] is not None:
        a = res["anova"].set_index("term")
        resid = float(a.loc["Residual", "df"])
        out["anova"] = {t: {"F": float(r.F), "df": float(r.df), "df_resid": resid, "p": float(r.p),
                            "partial_eta_sq": float(r.partial_eta_sq)}
                        for t, r in a.drop(index="Residual").iterrows()}
    if res["mixed"] is not None:
        m = res["mixed"]
        out["mixed"] = {"converged": bool(m.attrs["converged"]), "n_obs": int(m.attrs["n_obs"]),
                        "n_groups": int(m.attrs["n_groups"]),
                        "terms": m.set_index("term")[["estimate", "ci_low", "ci_high", "p"]].to_dict(orient="index")}
    return out


def anova_sentence(res: dict, term: str) -> str:
    """'F(df, df_resid) = F, p = p, partial η² = ...' for one ANOVA term."""
    a = res["anova"]
    if a is None:
        return "not estimable (one model)"
    t = a.set_index("term")
    if term not in t.index:
        raise ValueError(f"term {term!r} not in the ANOVA table (terms: {t.index.tolist()})")
    r, resid = t.loc[term], t.loc["Residual", "df"]
    return f"F({r.df:.0f}, {resid:.0f}) = {r.F:.1f}, p = {r.p:.2g}, partial η² = {r.partial_eta_sq:.2f}"


def findings_markdown(res: dict, *, label: str, families: Sequence[str] = ("Gemma", "Llama"),
                      by: Sequence[str] = ("category", "valence")) -> str:
    """What the family tests show, in sentences computed from the tables (no number is typed in by hand)."""
    s = summarise(res, families)
    by = list(by)
    fa, fb = families
    perm = res["permutation"]
    counts = ", ".join(f"{v} {k}" for k, v in s["models_per_family"].items())
    unit = ("each model is one replicate" if s["unit"] == "model"
            else "each prompt is one replicate, so the tests compare these particular models rather than families")
    lines = [f"**{label}** ({counts} model(s); {s['n_prompts']} prompts; {unit}).", ""]
    if s["n_significant_fdr"] == 0:
        lines.append(f"In plain words: **no panel shows a significant {fa}–{fb} difference after FDR correction**, "
                     "so these scores do not establish a family effect" +
                     (" at the level of models." if s["unit"] == "model" else " between these models.") +
                     " Point estimates and their intervals are below.")
    else:
        sig = perm[perm["reject"]]
        lines.append(f"In plain words: **{len(sig)} of {len(perm)} panel(s) show a significant {fa}–{fb} difference "
                     "after FDR correction**: " + "; ".join(
                         ", ".join(str(r[b]) for b in by) for _, r in sig.iterrows()) + ".")
    lines.append("")
    lines.append(f"- Permutation Welch tests, {fa} vs {fb}, in {s['n_panels']} panels "
                 f"({' × '.join(by)}): {s['n_significant_raw']} panel(s) with p < 0.05 before correction, "
                 f"**{s['n_significant_fdr']} after FDR** (smallest p = {s['min_p']:.3g}, "
                 f"smallest FDR-adjusted p = {s['min_p_fdr']:.3g}). With {perm['n_a'].iloc[0]} vs "
                 f"{perm['n_b'].iloc[0]} {'models' if s['unit'] == 'model' else 'model × prompt rows'} the smallest p an exact "
                 f"permutation test can give is {s['min_attainable_p']:.3g}.")
    for _, row in perm.sort_values("p").head(4).iterrows():
        lines.append(f"  - {describe_panel(row, by, fa, fb)}")
    if res["anova"] is not None:
        inter = ":".join([by[0], by[1], "model"])
        lines.append(f"- Type-II ANOVA of median ranks: {by[0]} {anova_sentence(res, by[0])}; "
                     f"{by[0]} × {by[1]} {anova_sentence(res, ':'.join(by))}; "
                     f"{by[0]} × {by[1]} × model {anova_sentence(res, inter)}. A large three-way term says the "
                     "models differ in their profiles; it does not say the difference follows family lines.")
    if res["mixed"] is not None:
        m = res["mixed"]
        three = m[m["term"].str.count(":") == 2]
        caveat = ("A random intercept does not absorb each model's own profile, so these p-values treat prompts "
                  "as independent replicates; the model-level permutation test above is the stricter test of a "
                  "family effect.")
        if len(three) == 1:
            r = three.iloc[0]
            lines.append(f"- Mixed model (random intercept per model), family × {by[0]} × {by[1]} term: "
                         f"{r.estimate:.1f} rank points [95% CI {r.ci_low:.1f}, {r.ci_high:.1f}], p = {r.p:.2g}. "
                         + caveat)
        elif len(three) > 1:
            r = three.loc[three["estimate"].abs().idxmax()]
            lines.append(f"- Mixed model (random intercept per model): {int((three['p'] < 0.05).sum())} of "
                         f"{len(three)} family × {by[0]} × {by[1]} terms have p < 0.05 (largest: {r.term}, "
                         f"{r.estimate:.1f} rank points [95% CI {r.ci_low:.1f}, {r.ci_high:.1f}]). " + caveat)
    for n in s["notes"]:
        lines.append(f"- Note: {n}.")
    return "\n".join(lines)


def direction_agreement(reference: pd.DataFrame, other: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per panel, the sign of the family difference in two permutation tables (e.g. published vs embedded)."""
    by = list(by)
    j = reference[[*by, "difference", "p_fdr"]].merge(other[[*by, "difference", "p_fdr"]], on=by,
                                                       suffixes=("_reference", "_other"))
    j["same_direction"] = np.sign(j["difference_reference"]) == np.sign(j["difference_other"])
    return j


def direction_markdown(perm: pd.DataFrame, *, category: str = "category", valence: str = "valence",
                       families: Sequence[str] = ("Gemma", "Llama")) -> str:
    """Per valence, which categories each family ranks higher (point estimates; FDR-significant ones in bold)."""
    fa, fb = families
    lines = []
    for v, g in perm.groupby(valence, sort=True):
        parts = []
        for fam, mask in ((fa, g["mean_a"] < g["mean_b"]), (fb, g["mean_a"] > g["mean_b"])):
            cats = [f"**{c}**" if r else str(c) for c, r in zip(g.loc[mask, category], g.loc[mask, "reject"])]
            parts.append(f"{fam} ranks higher: {', '.join(cats) if cats else 'none'}")
        lines.append(f"- Under {v} prompts — " + "; ".join(parts) + ".")
    return "\n".join(lines)

"""The two response sets of the good-teacher analysis (:mod:`rmbook.chapters.good_teachers.analysis`), built the same
way.

* **published**: the 7,530 EloEverything items under one prompt, human Elo as the ground truth r*, the paper RMs'
  released scores as the proxies, and π_0 choices made by :func:`initial_policies`.
* **compute**: the one-token answers to one prompt in the *policy* LM's vocabulary, with π_0 the LM's own
  next-token distribution at the answer slot (a real policy's starting point, not a constructed one). The proxies
  and the stand-in for r* are swept over their own vocabularies (``rmlib.engine.token_rewards``) and matched to
  the policy's tokens by **token id** when the two tokenizers agree on every id the policy has (an RM trained
  from the policy's base), otherwise by **decoded text**, keeping only texts that occur once in each vocabulary (a
  text that two ids decode to cannot be matched one to one). Special tokens are dropped (they are not answers);
  π_0 is renormalised over the tokens every model covers, and the share of the policy's probability mass that
  survives the matching is reported, so a reader sees how much of the real policy the analysis keeps.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rmbook.analysis.choices import ANY_MODE
from rmbook.chapters.good_teachers.dynamics import (concentrated_pi0, effective_size, pairwise_accuracy,
                                                    planted_teachers, sampled_accuracy, standardise, teaching_table,
                                                    uniform_pi0)
from rmlib import engine
from rmlib.data import ELO_PROMPTS, load_elo
from rmlib.errors import as_list
from rmlib.registry import get_spec, split_available

__all__ = ["MODES", "Setting", "PI0_KINDS", "initial_policies", "elo_setting", "align_to_policy",
           "pi0_from_logprob", "vocabulary_setting", "compute_setting", "overview", "reward_kinds",
           "sampled_accuracies", "planted_case"]

MODES = ANY_MODE  # the chapter's data sets: the published scores, a policy's own sweep

PI0_KINDS = {
    "uniform": "every item equally likely: the pairs an accuracy benchmark draws at random",
    "random": "most of the mass on a random subset of the items: a policy with arbitrary habits",
    "top": "most of the mass on the items one RM ranks highest: a policy already trained on that RM",
}


@dataclass
class Setting:
    """A response set with its ground truth, its proxy RMs and its initial policies."""

    name: str
    rewards: pd.DataFrame            # items × proxy RMs (raw scores; rmlib.teaching standardises them)
    truth: np.ndarray                # r* per item (raw)
    truth_name: str
    items: np.ndarray                # what each response is (item title, token text)
    pi0s: dict                       # name -> π_0 over the items
    kinds: dict                      # proxy -> reward kind (RM score, LM log-prob)
    notes: dict = field(default_factory=dict)


def initial_policies(kinds, n: int, ranking=None, *, size: int, mass: float, seed: int = 0,
                     ranker: str = "") -> dict:
    """The π_0 choices in ``kinds`` (see PI0_KINDS) over n items, named for the table.

    ``ranking`` (one score per item) is the RM whose top ``size`` items the "top" π_0 concentrates on; "random"
    draws ``size`` items with ``seed``. A concentrated π_0 puts ``mass`` on its items and the rest on all items.
    """
    if unknown := [k for k in kinds if k not in PI0_KINDS]:
        raise ValueError(f"unknown π_0 kinds {unknown}; choose from {list(PI0_KINDS)}")
    if not kinds:
        raise ValueError("give at least one π_0 kind")
    if not 1 <= size < n:
        raise ValueError(f"a concentrated π_0 needs 1 ≤ size < {n} items, got {size}")
    out = {}
    for k in kinds:
        if k == "uniform":
            out["uniform"] = uniform_pi0(n)
        elif k == "random":
            pick = np.random.default_rng(seed).choice(n, size, replace=False)
            out[f"random {size}"] = concentrated_pi0(n, pick, mass)
        else:
            if ranking is None:
                raise ValueError("the 'top' π_0 needs the ranking RM's scores")
            top = np.argsort(-np.asarray(ranking, dtype=float), kind="stable")[:size]
            out[f"top {size} of {ranker}".strip()] = concentrated_pi0(n, top, mass)
    return out


def elo_setting(prompt_key: str = "greatest", *, models=None, n_items: int | None = None, pi0=("uniform",),
                size: int = 500, mass: float = 0.95, top_rm: str | None = None, seed: int = 0) -> Setting:
    """EloEverything under one prompt: human Elo as r*, the paper RMs' published scores as proxies.

    ``n_items`` keeps that many items spread evenly over the human ranking (None: all). ``top_rm`` (an id or
    nickname) is the RM whose top items the "top" π_0 holds; None takes the most accurate over uniform pairs.
    """
    if prompt_key not in ELO_PROMPTS:
        raise ValueError(f"prompt_key={prompt_key!r}; choose one of {list(ELO_PROMPTS)}")
    wide = load_elo("wide")
    paper = list(wide.columns[6:])
    models = paper if models is None else as_list(models, "models")
    if bad := [m for m in models if m not in paper]:
        raise ValueError(f"{bad} have no published EloEverything scores; the published RMs are {paper}")
    if len(models) < 1:
        raise ValueError("give at least one published RM")
    elo = wide[wide["prompt_key"] == prompt_key].sort_values("elo_rank").reset_index(drop=True)
    if n_items is not None:
        if n_items < 20:
            raise ValueError(f"n_items={n_items}: use at least 20 items (or None for all)")
        elo = elo.iloc[np.unique(np.linspace(0, len(elo) - 1, min(n_items, len(elo))).round().astype(int))]
    label = {m: get_spec(m).nickname or m for m in models}
    rewards = elo[models].rename(columns=label).reset_index(drop=True)
    truth = elo["elo_score"].to_numpy(float)
    accuracy = {m: pairwise_accuracy(rewards[m].to_numpy(float), truth) for m in rewards}
    ranker = max(accuracy, key=accuracy.get) if top_rm is None else label.get(top_rm, top_rm)
    if "top" in pi0 and ranker not in rewards:
        raise ValueError(f"top_rm={top_rm!r} is not among the proxies {list(rewards)}")
    pi0s = initial_policies(pi0, len(elo), rewards[ranker] if "top" in pi0 else None, size=size, mass=mass,
                            seed=seed, ranker=ranker)
    return Setting("published", rewards, truth, "human Elo", elo["item"].to_numpy(), pi0s,
                   {label[m]: "RM score (published)" for m in models},
                   {"prompt_key": prompt_key, "top_rm": ranker, "ids": {label[m]: m for m in models}})


def pi0_from_logprob(logprob) -> np.ndarray:
    """exp(log p) renormalised over the tokens kept (a softmax of the log-probs)."""
    lp = np.asarray(logprob, dtype=float)
    if lp.ndim != 1 or lp.size < 2 or not np.isfinite(lp).all():
        raise ValueError("need finite log-probabilities of at least 2 tokens")
    p = np.exp(lp - lp.max())
    return p / p.sum()


def _same_ids(policy: pd.DataFrame, other: pd.DataFrame) -> bool:
    theirs = other.set_index("token_id")["token"]
    mine = policy.set_index("token_id")["token"]
    return mine.index.isin(theirs.index).all() and bool((theirs.reindex(mine.index) == mine).all())


def align_to_policy(policy: pd.DataFrame, others: dict, value: str = "reward") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Match every frame in ``others`` ({label: sweep frame}) to the policy's non-special tokens.

    ``policy`` is an LM sweep (``token_id, token, text, is_special, logprob``); each frame in ``others`` has
    ``token_id, token, text, is_special`` and ``value``. Returns ``(aligned, coverage)``: one row per token that
    every frame covers, with ``token_id``, ``text``, ``logprob`` (the policy's) and one column per label; and per
    label how it was matched, how many of the policy's tokens it covers and their share of the policy's
    probability mass.
    """
    need = {"token_id", "token", "text", "is_special"}
    if missing := (need | {"logprob"}) - set(policy.columns):
        raise ValueError(f"the policy sweep lacks columns {sorted(missing)} (sweep an LM with token_rewards)")
    base = policy.loc[~policy["is_special"].astype(bool), ["token_id", "token", "text", "logprob"]]
    mass = np.exp(policy["logprob"].to_numpy(float))
    mass_of = dict(zip(policy["token_id"], mass / mass.sum()))
    aligned, rows = base.copy(), []
    for label, df in others.items():
        if missing := (need | {value}) - set(df.columns):
            raise ValueError(f"{label}: the sweep lacks columns {sorted(missing)}")
        df = df[~df["is_special"].astype(bool)]
        if _same_ids(base, df):
            how, col = "token id", df.set_index("token_id")[value]
            matched = base["token_id"].map(col)
        else:
            how = "decoded text"
            uniq = df[~df["text"].duplicated(keep=False)].set_index("text")[value]
            mine_unique = ~base["text"].duplicated(keep=False)
            matched = base["text"].map(uniq).where(mine_unique)
        aligned[label] = matched.to_numpy()
        ok = matched.notna().to_numpy()
        rows.append({"model": label, "matched_by": how, "n_tokens": int(ok.sum()), "share_tokens": float(ok.mean()),
                     "share_pi0_mass": float(base["token_id"][ok].map(mass_of).sum())})
    aligned = aligned.dropna().drop(columns="token").reset_index(drop=True)
    if len(aligned) < 2:
        raise ValueError("fewer than 2 tokens are common to the policy and every other model; the vocabularies "
                         "do not overlap enough for this analysis")
    cov = pd.DataFrame(rows)
    all_mass = float(aligned["token_id"].map(mass_of).sum())
    cov = pd.concat([cov, pd.DataFrame([{"model": "(all models)", "matched_by": "", "n_tokens": len(aligned),
                                         "share_tokens": len(aligned) / len(base), "share_pi0_mass": all_mass}])],
                    ignore_index=True)
    return aligned, cov


def vocabulary_setting(policy: pd.DataFrame, proxies: dict, truth: pd.DataFrame, *, policy_name: str,
                       truth_name: str) -> Setting:
    """A vocabulary as the response set: π_0 from the ``policy`` LM sweep, r* from the ``truth`` sweep.

    ``proxies`` maps a label to a sweep (``token_rewards`` frames). Two π_0: the policy's own next-token
    distribution ("policy") and a uniform one over the same tokens, the contrast an accuracy benchmark draws.
    """
    if (policy["reward_kind"] != policy["reward_kind"].iloc[0]).any() or not str(
            policy["reward_kind"].iloc[0]).startswith("LM"):
        raise ValueError(f"the policy must be an LM swept by log-prob, got {policy['reward_kind'].iloc[0]!r}")
    frames = {**proxies, "__truth__": truth}
    aligned, coverage = align_to_policy(policy, frames)
    pi0 = pi0_from_logprob(aligned["logprob"])
    kinds = {k: str(v["reward_kind"].iloc[0]) for k, v in proxies.items()}
    coverage["model"] = coverage["model"].replace({"__truth__": truth_name})
    return Setting("compute", aligned[list(proxies)], aligned["__truth__"].to_numpy(float), truth_name,
                   aligned["text"].to_numpy(), {f"policy ({policy_name})": pi0, "uniform": uniform_pi0(len(pi0))},
                   kinds, {"coverage": coverage, "policy": policy_name, "token_ids": aligned["token_id"].to_numpy()})


def compute_setting(models, policy: str, ground_truth: str, prompt: str, tokens: int | None = None
                    ) -> tuple[Setting | None, dict[str, str]]:
    """The compute-mode setting from model ids: sweep the policy, the stand-in for r* and every proxy that can be
    loaded (:func:`rmlib.engine.token_rewards`, cached), then :func:`vocabulary_setting`. Returns ``(setting,
    absent)``; the setting is None when the policy, the ground truth or every proxy is absent."""

    models = as_list(models, "models")
    present, absent = split_available([policy, ground_truth, *models])
    proxies = [m for m in models if m in present]
    if policy not in present or ground_truth not in present or not proxies:
        return None, absent
    span = None if tokens is None else slice(0, int(tokens))
    sweeps = {m: engine.token_rewards(m, prompt, tokens=span, progress=False)
              for m in dict.fromkeys([policy, ground_truth, *proxies])}
    nick = {m: get_spec(m).nickname or m for m in sweeps}
    truth_kind = sweeps[ground_truth]["reward_kind"].iloc[0]
    return vocabulary_setting(sweeps[policy], {nick[m]: sweeps[m] for m in proxies}, sweeps[ground_truth],
                              policy_name=nick[policy], truth_name=f"{nick[ground_truth]} ({truth_kind})"), absent


def overview(settings: dict, lr: float) -> pd.DataFrame:
    """One row per setting and π_0: responses, proxies, r*, N_eff(π_0), E_π0[r*] and the learning rate η it gets."""
    return pd.DataFrame([
        {"setting": name, "responses": len(st.truth), "proxy RMs": st.rewards.shape[1],
         "ground truth r*": st.truth_name, "π_0": p, "N_eff(π_0)": effective_size(pi0),
         "E_π0[r*] (sd)": standardise(st.truth) @ pi0, "η = LR·N_eff": lr * effective_size(pi0)}
        for name, st in settings.items() for p, pi0 in st.pi0s.items()])


def reward_kinds(settings: dict) -> pd.DataFrame:
    """Which kind of reward each proxy gives (a trained RM's score, or an LM's log-probability)."""
    return pd.DataFrame([{"setting": name, "proxy": m, "reward kind": st.kinds[m]}
                         for name, st in settings.items() for m in st.rewards])


def sampled_accuracies(settings: dict, tables: dict, n_pairs: int, seed: int = 0) -> tuple[pd.DataFrame, float]:
    """Accuracy over ``n_pairs`` pairs drawn from π_0 beside the exact one, per (setting, π_0, RM), and the largest
    gap: the check that the exact sum is what a benchmark would estimate."""
    sampled = pd.DataFrame([
        {**row, "sampled": sampled_accuracy(settings[name].rewards[row["model"]], settings[name].truth,
                                            settings[name].pi0s[row["pi0"]], n_pairs, seed=seed)}
        for name, tab in tables.items() for row in tab[["pi0", "model", "accuracy_pi0"]].to_dict("records")])
    return sampled, float((sampled["sampled"] - sampled["accuracy_pi0"]).abs().max())


def planted_case(setting: Setting, *, size: int, mass: float, seed: int = 0, **dynamics
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The theory's clean case on ``setting``'s responses: a π_0 holding ``mass`` on the ``size`` best responses by
    r*, and the two :func:`rmbook.chapters.good_teachers.analysis.planted_teachers`; ``dynamics`` go to
    ``teaching_table``."""
    truth_z = standardise(setting.truth)
    support = np.argsort(-truth_z, kind="stable")[:size]
    pi0 = {f"top {size} by r*": concentrated_pi0(len(truth_z), support, mass)}
    planted = pd.DataFrame(planted_teachers(setting.truth, support, seed=seed))
    return teaching_table(planted, setting.truth, pi0, **dynamics)

"""Scoring (layer 3): exhaustive token sweeps, multi-token answers, the round-trip audit, rewards, `rmlib verify`.

* :func:`token_rewards`, :func:`token_rewards_many`, :func:`answer_rewards`, :func:`token_reward_table`
  (``rewards.py``): the one place where a model id becomes rewards, with a ``reward_kind``; chapters call these
  (``TOKENS`` parameters become vocabulary slices through :func:`token_range`);
* :func:`sweep` (``token_sweep.py``) and :func:`score_answers` (``answers.py``): the engine beneath, with its scoring
  kernels (``kernels.py``, ``prefix_attention.py``), input checks (``checks.py``) and verified result cache
  (``store.py``);
* :func:`run_plan` (``plan_runner.py``) runs a :class:`Plan` (``plan.py``) of many sweeps, serially or on Ray;
* :func:`roundtrip_audit` (``audit.py``); :func:`verify_cache` (``verify.py``, the ``rmlib verify`` command);
* ``tokens.py``: the ``tokens=`` argument (None, a slice or ids), checked before anything loads, then vocabulary ids;
* ``sweep_index.py``: serves a cached sweep without loading its model, from a request fingerprint (checked shards);
* ``prefix_tree.py``: prompts' shared openings run once, what follows per prompt (exact, for :func:`score_answers`);
* ``cost.py``: what a plan costs (FLOPs from the registry's ``arch:``, an estimate) and its jobs' split over workers;
* ``preflight.py``: the checks before a long sweep (``rmlib check MODEL``): load, conversation, paths agree, time;
* ``agreement.py``: when two scorings agree (tolerances in sd of the scores, per dtype; float32 weights for a check);
* ``gcg/``: multi-token optima and pessima by Greedy Coordinate Gradient search (:func:`rmlib.engine.gcg.gcg`).

Sweep options (tokens, mode, method, batch size, cache) are arguments of these functions; how a model is loaded is
a separate :class:`rmlib.models.LoadOptions` (``load=``).
"""
from rmlib.lazy import lazy_face

# where each public name lives: imported on first use (rmlib.lazy), so importing this package loads no torch
_WHERE = {
    **dict.fromkeys(["score_answers"], "answers"),
    **dict.fromkeys(["roundtrip_audit"], "audit"),
    **dict.fromkeys(["SweepError", "candidate_ids", "resolve_model"], "checks"),
    **dict.fromkeys(["answer_rewards", "token_reward_table", "token_rewards", "token_rewards_many", "with_reward"],
                    "rewards"),
    **dict.fromkeys(["parse_tokens", "token_range"], "tokens"),
    **dict.fromkeys(["Job", "Plan", "expand", "load_plan", "plan_status"], "plan"),
    **dict.fromkeys(["GPUS", "DEFAULT_MFU", "job_cost"], "cost"),
    **dict.fromkeys(["JobResult", "PlanReport", "run_plan"], "plan_runner"),
    **dict.fromkeys(["SweepResult"], "store"),
    **dict.fromkeys(["CHUNK", "MODES", "sweep"], "token_sweep"),
    **dict.fromkeys(["Finding", "print_report", "verify_cache"], "verify"),
}
__getattr__, __dir__ = lazy_face(__name__, _WHERE)

__all__ = ["sweep", "SweepResult", "SweepError", "score_answers", "roundtrip_audit", "token_rewards",
           "token_rewards_many", "token_range", "parse_tokens", "answer_rewards", "token_reward_table", "with_reward",
           "verify_cache",
           "print_report", "Finding", "CHUNK", "MODES", "candidate_ids", "resolve_model",
           "Plan", "Job", "load_plan", "expand", "plan_status", "run_plan", "JobResult", "PlanReport", "GPUS",
           "DEFAULT_MFU", "job_cost"]

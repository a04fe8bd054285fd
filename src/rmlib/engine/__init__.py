"""Scoring (layer 3): exhaustive token sweeps, multi-token answers, the round-trip audit, rewards, `rmlib verify`.

* :func:`token_rewards`, :func:`token_rewards_many`, :func:`answer_rewards`, :func:`token_reward_table`
  (``rewards.py``): the one place where a model id becomes rewards, with a ``reward_kind``; chapters call these
  (``TOKENS`` parameters become vocabulary slices through :func:`token_range`);
* :func:`sweep` (``token_sweep.py``) and :func:`score_answers` (``answers.py``): the engine beneath, with its scoring
  kernels (``kernels.py``, ``prefix_attention.py``), input checks (``checks.py``) and verified result cache
  (``store.py``);
* :func:`run_plan` (``plan_runner.py``) runs a :class:`Plan` (``plan.py``) of many sweeps, serially or on Ray;
* :func:`roundtrip_audit` (``audit.py``); :func:`verify_cache` (``verify.py``, the ``rmlib verify`` command).

Sweep options (tokens, mode, method, batch size, cache) are arguments of these functions; how a model is loaded is
a separate :class:`rmlib.models.LoadOptions` (``load=``).
"""
from rmlib.engine.answers import score_answers
from rmlib.engine.audit import roundtrip_audit
from rmlib.engine.checks import SweepError, candidate_ids, resolve_model
from rmlib.engine.rewards import (answer_rewards, token_range, token_reward_table, token_rewards, token_rewards_many,
                                  with_reward)
from rmlib.engine.plan import Job, Plan, expand, load_plan, plan_status
from rmlib.engine.plan_runner import JobResult, PlanReport, run_plan
from rmlib.engine.store import SweepResult
from rmlib.engine.token_sweep import CHUNK, MODES, sweep
from rmlib.engine.verify import Finding, print_report, verify_cache

__all__ = ["sweep", "SweepResult", "SweepError", "score_answers", "roundtrip_audit", "token_rewards",
           "token_rewards_many", "token_range", "answer_rewards", "token_reward_table", "with_reward", "verify_cache",
           "print_report", "Finding", "CHUNK", "MODES", "candidate_ids", "resolve_model",
           "Plan", "Job", "load_plan", "expand", "plan_status", "run_plan", "JobResult", "PlanReport"]

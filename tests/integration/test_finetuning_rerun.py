"""A rerun of the finetuning chapter with another learning rate, tested below the notebook (#37 item 3): the chapter
trains through :func:`rmbook.chapters.finetuning.analysis.train_runs` and says what
:func:`~rmbook.chapters.finetuning.analysis.renamed_runs` finds, so those two and the training sentence decide it.

A run's name leaves out the learning rate, so a rerun with another one met the first run's RMs under the same names
and stopped ("holds a different run"); nothing in the chapter lets a reader choose a name. Now each such run is stored
under its name plus its run hash, the page says so, and the first run's RMs stay as they were."""
from __future__ import annotations

import ast

import pytest

from rmbook.book import declared_parameters
from rmbook.chapters.finetuning import analysis as ft
from rmbook.chapters.finetuning import results
from rmbook.report import prose
from rmlib.train import TrainConfig

pytestmark = pytest.mark.slow


def _configs(lr: float, steps: int) -> dict:
    """The chapter's plan at its tiny defaults (its own parameters cell), as its training cell builds it."""
    p = {k: ast.literal_eval(v) for k, v in declared_parameters("finetuning").items()
         if k in {"BASES", "SOURCES", "SEEDS", "N_PAIRS", "N_TEST", "BATCH_SIZE", "MAX_LEN", "TUNING"}}
    plan = ft.training_plan(p["BASES"], p["SOURCES"], p["SEEDS"], p["N_PAIRS"])
    return {key: TrainConfig(name=ft.run_name(*key, steps, p["BATCH_SIZE"], p["TUNING"]), base=key[0],
                             sources=list(key[1]), seed=key[2], n_pairs=key[3], n_test=p["N_TEST"], steps=steps,
                             batch_size=p["BATCH_SIZE"], lr=lr, max_len=p["MAX_LEN"], tuning=p["TUNING"],
                             save_every=steps, dtype="float32")
            for key in plan}


def _sentence(configs: dict, runs: dict) -> str:
    summary = ft.training_summary(runs)
    trained = results.training(len(runs), [0], ["a", "b"], True, summary, 8, 32, 96, ft.renamed_runs(configs, runs))
    return prose.render("finetuning", "training", s=trained)


def test_a_rerun_with_another_learning_rate_trains_under_names_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("RMLIB_CACHE_DIR", str(tmp_path))
    lr = 2 * ast.literal_eval(declared_parameters("finetuning")["LR"])  # twice its default, as the cell writes it
    first_cfg, again_cfg = _configs(lr / 2, steps=2), _configs(lr, steps=2)
    first = ft.train_runs(first_cfg, progress=False)
    again = ft.train_runs(again_cfg, progress=False)
    planned = sorted(r.name for r in first.values())
    renamed = sorted(r.name for r in again.values())
    assert ft.renamed_runs(first_cfg, first) == [] and planned == sorted(c.name for c in first_cfg.values())
    assert sorted(ft.renamed_runs(again_cfg, again)) == renamed and len(renamed) == len(planned) == 2
    assert all(new.startswith(old + "-") and len(new) == len(old) + 9 for old, new in zip(planned, renamed))
    assert "2 runs trained under a name of their own" in _sentence(again_cfg, again)
    assert "trained under a name of their own" not in _sentence(first_cfg, first)
    # the same config again reuses its RMs under the names it got, and the first run's RMs are untouched
    third = ft.train_runs(_configs(lr, steps=2), progress=False)
    assert sorted(r.name for r in third.values()) == renamed
    assert all(third[k].run["run_hash"] == again[k].run["run_hash"] and third[k].resumed_from is None for k in again)
    assert sorted(r.name for r in ft.train_runs(first_cfg, progress=False).values()) == planned

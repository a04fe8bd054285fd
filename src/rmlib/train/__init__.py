"""Training reward models (layer 3): Bradley-Terry RMs from any registry base, with identical data across bases.

Why this package exists: "RMs inherit values from their base" is best tested by a controlled experiment, training
RMs from different bases on exactly the same pairs, in the same order, with the same hyperparameters, and comparing
what they learnt. TRL's ``RewardTrainer`` does the optimisation; rmlib adds around it:

* ``config.py``: :class:`TrainConfig`, validated before any model is loaded;
* ``pairs.py``: tokenizer-independent data (selection, split by prompt, seeded nested subsamples, the schedule);
* ``encode.py``: one rendering per base (its chat template; truncation keeps the end);
* ``trainer.py``: :func:`train` (TRL wiring, resume, data order), :func:`load_run`;
* ``export.py``: atomic checkpoints with sha256 manifests, loadable as ``local:<name>[@step<N>]``;
* ``evaluate.py``: held-out pairwise accuracy and reward variance.

A new training objective (e.g. DPO for the implicit-reward chapters) goes next to ``trainer.py``, sharing the
config, the pairs, the encoding and the export.
"""
from rmlib.train.config import DTYPES, METHODS, SYNTHETIC, TrainConfig, TrainConfigError, TrainResult, validate
from rmlib.train.encode import TRUNCATION_POLICY, PairEncoder, encode_pairs, template_overhead
from rmlib.train.evaluate import EvalError, pairwise_accuracy, reward_variance, score_pairs
from rmlib.train.export import export
from rmlib.train.pairs import data_hash, schedule, select_pairs, synthetic_marker_pairs
from rmlib.train.trainer import load_run, prepare, train

__all__ = ["TrainConfig", "TrainConfigError", "TrainResult", "validate", "train", "prepare", "load_run",
           "synthetic_marker_pairs", "data_hash", "select_pairs", "schedule", "PairEncoder", "encode_pairs",
           "template_overhead", "TRUNCATION_POLICY", "export", "score_pairs", "pairwise_accuracy", "reward_variance",
           "EvalError", "SYNTHETIC", "METHODS", "DTYPES"]

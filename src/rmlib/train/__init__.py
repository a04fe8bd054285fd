"""Training reward models (layer 3): Bradley-Terry RMs from any registry base, with identical data across bases.

Why this package exists: "RMs inherit values from their base" is best tested by a controlled experiment, training
RMs from different bases on exactly the same pairs, in the same order, with the same hyperparameters, and comparing
what they learnt. TRL's ``RewardTrainer`` does the optimisation; rmlib adds around it:

* ``config.py``: :class:`TrainConfig`, validated before any model is loaded;
* ``pairs.py``: tokenizer-independent data (selection, split by prompt, seeded nested subsamples, the schedule);
* ``encode.py``: one rendering per base (its chat template; truncation keeps the end);
* ``trainer.py``: :func:`train` (TRL wiring, resume, data order), :func:`load_run`;
* ``frozen.py``: with ``last_n`` tuning, the frozen layers run once per sequence (states kept in the cache) and
  training reads their output instead of recomputing it;
* ``resume.py``: the trainer's resume checkpoints, hashed when saved and checked (a bad one set aside) before a resume;
* ``export.py``: atomic checkpoints with sha256 manifests, loadable as ``local:<name>[@step<N>]``
  (``rmlib.train.export.export``: the face does not re-export it, since the name is the module's);
* ``evaluate.py``: held-out pairwise accuracy and reward variance;
* ``naming.py``: the name a run is stored under (:func:`own_name`: its run hash added when another run holds it).

* ``dpo.py``: the DPO objective (``TrainConfig(objective='dpo', beta=...)``), an implicit RM trained by TRL's
  ``DPOTrainer`` on the same stream, exported as a causal LM whose implicit reward ``score_pairs`` computes.
"""
from rmlib.lazy import lazy_face

# where each public name lives: imported on first use (rmlib.lazy), so importing this package loads no torch
_WHERE = {
    **dict.fromkeys(["DTYPES", "TUNINGS", "OBJECTIVES", "SYNTHETIC", "TrainConfig", "TrainConfigError",
                     "TrainResult", "stored_tuning", "training_dtype", "validate"], "config"),
    **dict.fromkeys(["PairEncoder", "TRUNCATION_POLICY", "encode_pairs", "template_overhead"], "encode"),
    **dict.fromkeys(["EvalError", "completion_logps", "pairwise_accuracy", "reward_variance", "score_pairs"], "evaluate"),
    **dict.fromkeys(["data_hash", "schedule", "select_pairs", "synthetic_marker_pairs"], "pairs"),
    **dict.fromkeys(["TrainingDiverged", "load_run", "prepare", "train"], "trainer"),
    **dict.fromkeys(["hashed_name", "own_name", "same_finished_run", "train_data_hash"], "naming"),
}
__getattr__, __dir__ = lazy_face(__name__, _WHERE)

__all__ = ["TrainConfig", "TrainConfigError", "TrainResult", "validate", "train", "prepare", "load_run",
           "synthetic_marker_pairs", "data_hash", "select_pairs", "schedule", "PairEncoder", "encode_pairs",
           "template_overhead", "TRUNCATION_POLICY", "score_pairs", "pairwise_accuracy", "reward_variance",
           "EvalError", "TrainingDiverged", "SYNTHETIC", "TUNINGS", "OBJECTIVES", "DTYPES", "completion_logps",
           "stored_tuning", "own_name", "same_finished_run", "hashed_name",
           "train_data_hash", "training_dtype"]

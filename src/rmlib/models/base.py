"""What loading a model takes and gives: :class:`LoadOptions` in, :class:`LoadedModel` out, and the errors.

Loading options are kept apart from what a model is then used for (sweep options, training settings), so that a
cache of loaded models can key on them field by field (:mod:`rmlib.models.cache`) and no setting is read out of a
``**kwargs`` by accident.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, fields, replace

import torch

from rmlib.models.reward_heads import reward_head
from rmlib.registry import ModelError, ModelSpec

__all__ = ["ModelError", "RemoteCodeError", "HubUnavailableError", "CacheWarning", "LoadOptions", "LoadedModel"]


class RemoteCodeError(ModelError):
    pass


class HubUnavailableError(ModelError):
    """A hub model that is not in the local cache, while the hub cannot be reached (or HF_HUB_OFFLINE is set)."""


class CacheWarning(UserWarning):
    """A cached file failed its check and is being rebuilt (the message names it)."""


@dataclass(frozen=True)
class LoadOptions:
    """How to load a model. Every field changes what is loaded; none says what is then computed with it.

    head: 'rm' (scalar reward) or 'lm' (next-token log-probs); None: the registry's kind. dtype: float32, bfloat16,
    float16 or auto (None: auto). device: cpu, cuda, cuda:N (None: cuda when present). trust_remote_code: let the
    model's own code run (never implied; hub code only at a pinned ``revision``). allow_untrained_head: give an LM a
    random scalar head (speed tests only: it is not a reward model). seed: the random weights of tiny models and of
    an untrained head. revision: the hub commit to load. allow_pickle: read pickle weight files. score_reader: how an
    RM's score is read (:data:`rmlib.models.reward_heads.READERS`; None: the registry's default for the model).
    """

    head: str | None = None
    dtype: str | None = None
    device: str | None = None
    trust_remote_code: bool = False
    allow_untrained_head: bool = False
    seed: int = 0
    revision: str | None = None
    allow_pickle: bool = False
    score_reader: str | None = None

    def __post_init__(self):
        """Each field of its own type: a float or string seed, or a truthy string for a flag, would otherwise be
        taken silently (``seed=1.5`` as seed 1)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "seed":
                ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value < 2**32
                want = "an integer in [0, 2**32) (the seed range of numpy, which training shares)"
            elif isinstance(f.default, bool):
                ok, want = isinstance(value, bool), "True or False"
            else:
                ok, want = value is None or isinstance(value, str), "a string or None"
            if not ok:
                raise ModelError(f"loading option {f.name}={value!r} ({type(value).__name__}): give {want}")
        if self.head not in (None, "rm", "lm"):
            raise ModelError(f"head must be 'rm', 'lm' or None (the registry's kind), not {self.head!r}")
        if self.dtype not in (None, "auto", "float32", "bfloat16", "float16"):
            raise ModelError(f"unknown dtype {self.dtype!r}; use float32, bfloat16, float16 or auto")

    @classmethod
    def of(cls, options: "LoadOptions | None" = None, **changes) -> "LoadOptions":
        """``options`` (or the defaults) with ``changes``; an unknown name is an error that lists the known ones."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ModelError(f"{unknown} are not loading options; the loading options are {sorted(known)}")
        if options is not None and not isinstance(options, cls):
            raise ModelError(f"loading options must be a LoadOptions, not {type(options).__name__}")
        return replace(options or cls(), **changes)


@dataclass
class LoadedModel:
    spec: ModelSpec
    model: torch.nn.Module
    tokenizer: object
    head: str
    device: torch.device
    dtype: torch.dtype
    chat_template: str
    untrained_head: bool = False
    seed: int = 0                       # seeds the random weights of tiny models and of an untrained head
    resolved_revision: str | None = None  # what the weights were actually loaded from (each source says how)
    reader: str = "logits0"             # how an RM's score is read (rmlib.models.reward_heads.READERS)

    @property
    def reward_head(self):
        """The score reader bound to this model (:class:`rmlib.models.reward_heads.RewardHead`), built once."""
        bound = self.__dict__.get("_reward_head")
        if bound is None:
            bound = self.__dict__["_reward_head"] = reward_head(self.model, self.tokenizer, self.reader)
        return bound

    @property
    def revision(self) -> str:
        return self.resolved_revision or self.spec.revision or "main"

    @property
    def max_length(self) -> int | None:
        """The longest sequence (in tokens) the model was built for, or None when it does not say."""
        cfg = self.model.config
        cfg = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
        limits = [getattr(cfg, "max_position_embeddings", None),
                  getattr(self.tokenizer, "model_max_length", None)]
        limits = [int(x) for x in limits if isinstance(x, int) and 0 < x < 10**7]  # tokenizers say 1e30 for "none"
        return min(limits) if limits else None


@dataclass(frozen=True)
class Source:
    """How the models of one source (hub, embedded, tiny, local) are built; :mod:`rmlib.models.loading` keeps one
    per source in a table, so a new source is one module with these three functions and one table entry.

    tokenizer(spec, trust_remote_code) -> tokenizer; load(spec, head, options, device, dtype) -> (model placed on
    its device in eval mode, tokenizer, names of reward-head tensors the weights lacked); revision(spec, model) ->
    what identifies the weights in cache keys.
    """

    tokenizer: object
    load: object
    revision: object

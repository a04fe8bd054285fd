"""The one way every chapter, the engine, training and the CLI load a model: :func:`load_model`.

A hub id, an embedded GGUF, a tiny random model and an RM that rmlib trained all come back as the same
:class:`LoadedModel`, so a notebook written for the embedded defaults runs unchanged on a GPU with a 27B RM. What
differs between them is one entry of :data:`SOURCES`; what is the same for all (remote-code and untrained-head
policy, device and dtype, pad token, chat template, the weights' revision for cache keys) is here.
"""
from __future__ import annotations

from dataclasses import replace

from rmlib import costs
from rmlib.models import embedded, hub, local, tiny
from rmlib.models.base import LoadedModel, LoadOptions, ModelError, Source
from rmlib.models.devices import input_device, model_devices, place, resolve_device, resolve_dtype
from rmlib.models.policy import check_remote_code
from rmlib.models.trust import is_trusted
from rmlib.models.reward_heads import reader_name
from rmlib.models.templates import chat_template_of
from rmlib.registry import ModelSpec, spec_at

__all__ = ["SOURCES", "load_model", "load_tokenizer"]

def load_tokenizer(model_id: str, options: LoadOptions | None = None, **fields):
    """The tokenizer alone (no weights), under the same remote-code policy as :func:`load_model`."""
    opts = LoadOptions.of(options, **fields)
    spec = spec_at(model_id, opts.revision)
    trusted = is_trusted(spec, model_id, opts.trust_remote_code)
    check_remote_code(spec, trusted)
    return SOURCES[spec.source].tokenizer(spec, trusted)


@costs.phase("load")
def load_model(model_id: str, options: LoadOptions | None = None, *, spec: ModelSpec | None = None,
               **fields) -> LoadedModel:
    """Load a model as an RM (``head='rm'``, scalar score) or a causal LM (``head='lm'``), freshly (not cached:
    :func:`rmlib.models.cached_model` keeps one copy per process).

    ``options`` is a :class:`LoadOptions`; keyword arguments change single fields (``load_model(id, head='lm')``).
    An LM given a fresh scalar head is *not* a reward model: that needs ``allow_untrained_head=True`` (tests and
    speed benchmarks only) and is flagged. ``revision`` pins a hub model to a commit (required with
    ``trust_remote_code=True``). Weights are read from safetensors only: pickle files can run code when read, so a
    model that ships only those needs ``allow_pickle=True``. Cached files rmlib wrote (de-quantised weights, trained
    checkpoints) are checked against the sha256 recorded when they were written. ``spec``: the registry entry of
    ``model_id`` at ``options.revision`` where the caller has already looked it up (:func:`cached_model` does, for
    its key), so that one request resolves its id once and a ``local:`` run retrained meanwhile cannot split it.
    """
    opts = LoadOptions.of(options, **fields)
    spec = spec if spec is not None else spec_at(model_id, opts.revision)
    head = opts.head or spec.kind
    if head not in ("rm", "lm"):
        raise ModelError(f"head must be 'rm' or 'lm', not {head!r}")
    opts = replace(opts, trust_remote_code=is_trusted(spec, model_id, opts.trust_remote_code))
    check_remote_code(spec, opts.trust_remote_code)
    reader = reader_name(spec, opts.score_reader)  # None: the loaded model's own default (native head or logits0)
    untrained = head == "rm" and spec.kind == "lm"
    if untrained and not opts.allow_untrained_head:
        raise ModelError(f"{model_id} is a language model, not a reward model; a scalar head on it would be random. "
                         "Sweep it with head='lm' (log-probs), train an RM from it with rmlib.train, "
                         "or pass allow_untrained_head=True for speed tests only.")
    device = resolve_device(opts.device)
    dtype = resolve_dtype(spec, device, opts.dtype)
    source = SOURCES[spec.source]
    model, tok, fresh = source.load(spec, head, opts, device, dtype)
    costs.count_forwards(model)  # the FLOPs of its forward passes, for the book's cost table
    _vocabulary_fits(spec, model, tok)
    if device.type != "cpu" and {d.type for d in model_devices(model)} == {"cpu"}:
        model = place(model, device)  # a source that builds its model on the cpu (tiny)
    device = input_device(model, device)  # where input ids go: the GPU (of several) that holds the input embeddings
    if head == "rm" and fresh:
        untrained = True
        if not opts.allow_untrained_head:
            raise ModelError(f"{model_id} has no trained reward head ({', '.join(sorted(fresh))} would be "
                             "random): it is probably a language model. Load it with head='lm', or pass "
                             "allow_untrained_head=True for speed tests only.")
    if head == "rm" and tok.pad_token_id is not None and model.config.pad_token_id is None:
        model.config.pad_token_id = tok.pad_token_id
    template = chat_template_of(tok, None if spec.chat_template == "own" else spec.chat_template)
    reader = reader or getattr(model, "rmlib_default_reader", "logits0")
    lm = LoadedModel(spec=spec, model=model, tokenizer=tok, head=head, device=device, dtype=dtype,
                     chat_template=template, untrained_head=untrained, seed=opts.seed,
                     resolved_revision=source.revision(spec, model), reader=reader)
    if head == "rm":
        lm.reward_head  # a reader that does not fit the loaded head fails here, not in the middle of a sweep
    return lm


def _vocabulary_fits(spec: ModelSpec, model, tok) -> None:
    """Refuse a tokenizer with more ids (its vocabulary and added tokens) than the model's input embedding has rows:
    an id past the last row stopped scoring with "IndexError: index out of range in self" (#62). Fewer ids than
    rows is common (embeddings padded to a multiple of 64) and harmless."""
    try:
        embedding = model.get_input_embeddings()
        rows = int(getattr(embedding, "num_embeddings", 0) or embedding.weight.shape[0])
    except (AttributeError, NotImplementedError):
        return
    if len(tok) <= rows:
        return
    where = f"the tokenizer in {spec.path}" if spec.source == "local" else f"{spec.id}'s tokenizer"
    added = len(tok) - tok.vocab_size
    raise ModelError(f"{spec.id}: {where} has {len(tok)} ids, counting its added tokens ({tok.vocab_size} in its "
                     f"vocabulary + {added} added), but the model's input embedding has {rows} rows, so ids "
                     f"{rows}..{len(tok) - 1} would index past it. The tokenizer is not this model's: copy the "
                     "tokenizer files of the model it was trained from")


# registry source -> how its models are built (a new source: a module with tokenizer/load/revision, and a line here)
# (a local partial checkpoint loads its base through load_model itself, passed in rather than imported back)
SOURCES: dict[str, Source] = {"hub": hub.SOURCE, "embedded": embedded.SOURCE, "tiny": tiny.SOURCE,
                              "local": local.source(load_model)}

"""Loading models (layer 2): one entry point, one table of sources, one cache.

* :func:`load_model` (``loading.py``) with :class:`LoadOptions`, returning a :class:`LoadedModel`; both, and the
  errors, are defined in ``base.py``, kept apart from sweep and training options so a cache can key on them;
* one module per source, listed in :data:`SOURCES`: ``hub.py``, ``embedded.py`` (+ ``gguf.py``), ``tiny.py``,
  ``local.py`` (checkpoints rmlib trained, including the partial ``last_n`` format);
* :func:`cached_model` (``cache.py``): the process-wide cache the engine and the chapters use;
* :func:`sharing_bases` (``shared_base.py``): while a chapter evaluates ``last_n`` checkpoints, their base is loaded
  once and its frozen tensors shared by them (#61);
* ``templates.py`` (chat templates and the answer slot), ``devices.py``, ``policy.py`` (remote code, pickles), ``trust.py`` (:func:`trust_remote_code`: the
  per-model opt-in a chapter's ``TRUST_REMOTE_CODE`` parameter gives);
* ``layout.py``: a native head's layout against the hub's safetensors headers, before the weights download;
* ``files.py``: a saved model's files that cannot be read (damaged weights or tokenizer, a config that is not an
  object, a pickle that would run code) as a :class:`ModelError` naming the file;
* ``reward_heads.py``: score readers, how each RM's scalar is read from its backbone's hidden states (the engine
  runs the backbone itself); ``native_rms.py``: rmlib's own ArmoRM, QRM and URM heads (their hub code never runs);
* ``evidence.py``: whether an LM is base or instruction-tuned, read from what ships with it, not from its name.

What exists (ids, nicknames, families) is :mod:`rmlib.registry`, which loads nothing.
"""
from rmlib.lazy import lazy_face

# where each public name lives: imported on first use (rmlib.lazy), so importing this package loads no torch
_WHERE = {
    **dict.fromkeys(["CacheWarning", "HubUnavailableError", "LoadOptions", "LoadedModel", "ModelError",
                     "RemoteCodeError", "Source"], "base"),
    **dict.fromkeys(["cached_model", "clear", "release"], "cache"),
    **dict.fromkeys(["sharing_bases"], "shared_base"),
    **dict.fromkeys(["DTYPE_BY_NAME", "dtype_name", "resolve_device", "resolve_dtype"], "devices"),
    **dict.fromkeys(["instruct_evidence"], "evidence"),
    **dict.fromkeys(["SOURCES", "load_model", "load_tokenizer"], "loading"),
    **dict.fromkeys(["trust_remote_code", "trusted_models"], "trust"),
    **dict.fromkeys(["AnswerSlot", "TemplateError", "answer_slot", "chat_template_of"], "templates"),
}
__getattr__, __dir__ = lazy_face(__name__, _WHERE)

__all__ = ["load_model", "load_tokenizer", "LoadOptions", "LoadedModel", "cached_model", "release", "clear",
           "sharing_bases",
           "SOURCES", "Source", "ModelError", "RemoteCodeError", "HubUnavailableError", "CacheWarning",
           "resolve_device", "resolve_dtype", "DTYPE_BY_NAME", "dtype_name", "instruct_evidence", "AnswerSlot",
           "TemplateError", "answer_slot", "chat_template_of", "trust_remote_code", "trusted_models"]

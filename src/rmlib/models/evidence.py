"""Is a language model a base model or instruction-tuned? Read from what ships with it, not from its name.

The implicit-rewards chapter needs an instruct model and its own base for a DPO-style log-ratio; the registry's
``instruct`` field is a claim, the tokenizer's chat template and the GGUF file's own metadata are evidence.
gguf's reader parses every field of a file, the whole vocabulary included (6-25 s per embedded model on 2 cores),
so the three facts read from it are kept in the cache, keyed by the pinned GGUF's sha256 (:func:`gguf_facts`).
"""
from __future__ import annotations

import json

from rmlib import config
from rmlib.models.gguf import EMBEDDED
from rmlib.models.loading import load_tokenizer
from rmlib.registry import get_spec
from rmlib.storage import atomic

__all__ = ["instruct_evidence", "gguf_facts"]

_FACTS = {"gguf_name": (str, type(None)), "gguf_finetune": (str, type(None)), "chat_template_shipped": (bool,)}


def instruct_evidence(model_id: str) -> dict:
    """Is this LM base or instruction-tuned? Checked from what ships with it, not from its name in our registry.

    Evidence: a chat template in the tokenizer (base models usually ship none), and for embedded GGUFs the file's own
    metadata (general.name, general.finetune). Returns model, family, chat_template_shipped, gguf_name,
    gguf_finetune, verdict (instruct | base | unknown), registry_says.
    """
    spec = get_spec(model_id)
    out = {"model": model_id, "family": spec.base, "chat_template_shipped": None, "gguf_name": None,
           "gguf_finetune": None, "registry_says": {True: "instruct", False: "base"}.get(spec.instruct, "unknown")}
    if spec.source == "tiny":
        out["verdict"] = "unknown (tiny random model)"
        return out
    if spec.source == "embedded":
        out.update(gguf_facts(spec.gguf))
    else:
        out["chat_template_shipped"] = bool(getattr(load_tokenizer(model_id), "chat_template", None))
    tags = " ".join(str(x) for x in (out["gguf_name"], out["gguf_finetune"]) if x).lower()
    named = any(t in tags.replace("-", " ").split() for t in ("instruct", "it", "chat", "awq instruct"))
    named = named or "instruct" in tags
    out["verdict"] = "instruct" if (out["chat_template_shipped"] or named) else "base"
    return out



def gguf_facts(name: str) -> dict:
    """gguf_name, gguf_finetune and chat_template_shipped of the embedded GGUF ``name`` (a registry entry's
    ``gguf``), read from the file once and
    then served from ``<cache>/gguf/<sha256>.facts.json``. A stored record is served only when it names the pinned
    file's sha256 and holds exactly these three facts with their types; anything else is read again and rewritten."""
    gg = EMBEDDED[name]
    where = config.cache_dir() / "gguf" / f"{gg.sha256[:16]}.facts.json"
    try:
        kept = json.loads(where.read_text())
        if (isinstance(kept, dict) and kept.pop("sha256", None) == gg.sha256 and kept.keys() == _FACTS.keys()
                and all(isinstance(kept[k], t) for k, t in _FACTS.items())):
            return kept
    except (OSError, ValueError):
        pass
    import gguf

    fields = gguf.GGUFReader(gg.path()).fields
    get = lambda k: fields[k].contents() if k in fields else None  # noqa: E731
    facts = {"gguf_name": get("general.name"), "gguf_finetune": get("general.finetune"),
             "chat_template_shipped": get("tokenizer.chat_template") is not None}
    where.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(where, json.dumps({"sha256": gg.sha256, **facts}, sort_keys=True).encode())
    return facts

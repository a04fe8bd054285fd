"""Is a language model a base model or instruction-tuned? Read from what ships with it, not from its name.

The implicit-rewards chapter needs an instruct model and its own base for a DPO-style log-ratio; the registry's
``instruct`` field is a claim, the tokenizer's chat template and the GGUF file's own metadata are evidence.
"""
from __future__ import annotations

from rmlib.models.gguf import EMBEDDED
from rmlib.models.loading import load_tokenizer
from rmlib.registry import get_spec

__all__ = ["instruct_evidence"]


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
        import gguf

        fields = gguf.GGUFReader(EMBEDDED[spec.gguf].path()).fields
        get = lambda k: fields[k].contents() if k in fields else None  # noqa: E731
        out.update(gguf_name=get("general.name"), gguf_finetune=get("general.finetune"),
                   chat_template_shipped=get("tokenizer.chat_template") is not None)
    else:
        out["chat_template_shipped"] = bool(getattr(load_tokenizer(model_id), "chat_template", None))
    tags = " ".join(str(x) for x in (out["gguf_name"], out["gguf_finetune"]) if x).lower()
    named = any(t in tags.replace("-", " ").split() for t in ("instruct", "it", "chat", "awq instruct"))
    named = named or "instruct" in tags
    out["verdict"] = "instruct" if (out["chat_template_shipped"] or named) else "base"
    return out


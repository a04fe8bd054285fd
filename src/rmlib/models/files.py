"""A saved model's files that cannot be read become a :class:`ModelError` naming the file, never a library's raw
error: a truncated, empty or garbage ``*.safetensors`` (or one linked to some other file), a pickle that would run
code, a ``config.json`` that is not a JSON object, a folder without a tokenizer, a ``tokenizer.json`` that is not text.

Why here and not at each call: safetensors, torch's unpickler, transformers and tokenizers each raise their own error
(``SafetensorError: header too large``, ``UnpicklingError``, ``TypeError: argument after ** must be a mapping``,
``'utf-8' codec can't decode``), none of them names the file, and the CLI shows only rmlib's errors as messages.
The folder's files are looked at only after a load failed, so an intact model pays nothing.
"""
from __future__ import annotations

import contextlib
import json
import pickle
from pathlib import Path

from rmlib.errors import RmlibError
from rmlib.models.base import ModelError

__all__ = ["TOKENIZER_FILES", "check_config", "unreadable_weights", "folder_tokenizer"]

# Any one of these lets AutoTokenizer build a tokenizer (fast, sentencepiece, or BPE vocab + merges)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "tokenizer_config.json", "spiece.model")


def check_config(folder: Path, what: str) -> dict:
    """``folder``'s config.json as a dict; a ModelError when it is missing, not text, not JSON or not an object."""
    path = Path(folder) / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{what}: {folder} has no config.json, so it is not a saved model folder") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelError(f"{what}: {path} is damaged: it is not JSON ({type(exc).__name__}: {exc}); copy the "
                         "model's config.json again") from None
    if not isinstance(config, dict):
        raise ModelError(f"{what}: {path} holds a JSON {type(config).__name__}, not the object of a model's "
                         "configuration; copy the model's config.json again")
    return config


def _damaged_weight_file(folder: Path) -> tuple[Path, str] | None:
    """The first ``*.safetensors`` in ``folder`` whose header cannot be read, with safetensors' reason."""
    from safetensors import safe_open

    for path in sorted(Path(folder).glob("*.safetensors")):
        try:
            with safe_open(str(path), framework="pt"):
                pass
        except Exception as exc:  # SafetensorError, or an OSError for a link to something unreadable
            return path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


@contextlib.contextmanager
def unreadable_weights(what: str, folder: Path | None):
    """Turn a load that failed on the weight files into a ModelError naming the file (``folder``: a local model's
    folder; None for a hub model, whose cached copy is named by its id)."""
    from safetensors import SafetensorError

    try:
        yield
    except SafetensorError as exc:
        found = _damaged_weight_file(folder) if folder is not None else None
        if found is not None:
            path, why = found
            link = f" (a link to {path.resolve()})" if path.is_symlink() else ""
            raise ModelError(f"{what}: {path}{link} is not a readable safetensors file ({why}): it is truncated, "
                             "empty or something else; copy the weights again") from None
        fix = ("copy the weights again" if folder is not None else
               "delete the model from the hub cache (`hf cache delete`) and download it again")
        raise ModelError(f"{what}: its weights cannot be read ({exc}); {fix}") from None
    except pickle.UnpicklingError as exc:
        blocked = next((line.strip().split(". ")[0].rstrip(".") for line in str(exc).splitlines()
                        if "GLOBAL" in line), "")
        raise ModelError(f"{what}: a pickle weight file holds more than tensors, so reading it would run code "
                         f"({blocked or str(exc).splitlines()[0]}). Even with allow_pickle, rmlib reads pickles "
                         "with torch's weights_only=True, which refuses it. Do not load it; if it comes from a "
                         "source you trust, convert it to safetensors there") from None


def saved_pipeline(folder: Path) -> dict:
    """``tokenizer_object=`` the folder's ``tokenizer.json`` as saved, for ``AutoTokenizer.from_pretrained`` (nothing
    without one). Why: given the folder alone, transformers 5 rebuilds some classes' pipelines from the class's own
    defaults; Qwen2's then puts an NFC normalizer in front of a saved pipeline that has none (the GGUF's conversion,
    and every checkpoint trained from it), and text with combining marks is encoded otherwise than in training."""
    from tokenizers import Tokenizer

    saved = Path(folder) / "tokenizer.json"
    try:
        return {"tokenizer_object": Tokenizer.from_file(str(saved))} if saved.is_file() else {}
    except Exception:  # noqa: BLE001 - a damaged file: transformers reads it next and names what is wrong
        return {}


def folder_tokenizer(folder: Path, what: str, trust_remote_code: bool):
    """AutoTokenizer of a model folder; a ModelError when the folder has no tokenizer files or they are damaged."""
    from transformers import AutoTokenizer

    folder = Path(folder)
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise ModelError(f"{what}: {folder} holds no tokenizer (none of {', '.join(TOKENIZER_FILES)}): copy the "
                         "tokenizer files of the model it was trained from into the folder "
                         "(tokenizer.save_pretrained(folder))")
    try:
        return AutoTokenizer.from_pretrained(str(folder), trust_remote_code=bool(trust_remote_code),
                                             **saved_pipeline(folder))
    except RmlibError:
        raise
    except Exception as exc:  # JSON, Unicode, key and type errors, and the tokenizers library's own bare Exception
        names = ", ".join(n for n in TOKENIZER_FILES if (folder / n).is_file())
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ModelError(f"{what}: the tokenizer in {folder} cannot be read ({type(exc).__name__}: {first}); one "
                         f"of its files ({names}) is damaged: copy the tokenizer files again") from None

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
import inspect
import json
import pickle
from pathlib import Path

from rmlib.errors import RmlibError
from rmlib.models.base import ModelError

__all__ = ["TOKENIZER_FILES", "check_config", "unreadable_weights", "folder_tokenizer", "saved_tokenizer"]

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


# the tokenizer classes' own attributes that only set a default; anything else a class defines (a method, a
# property) may change what it encodes or returns, and such a class is loaded by its own constructor
_DEFAULTS_ONLY = ("vocab_files_names", "model", "padding_side", "truncation_side", "model_input_names")


def _defaults_only_class(folder: Path):
    """The tokenizer class that the folder's ``tokenizer_config.json`` names, and that config, when AutoTokenizer
    would build that class and the class adds nothing to the saved ``tokenizer.json`` but an ``__init__`` (which
    rebuilds the pipeline from its own defaults) and the default attributes above; None otherwise: a config that
    loads code (``auto_map``) or names no class, a class with methods of its own or with a constructor default that
    the config leaves to it, one that AutoTokenizer replaces
    (LlamaTokenizer over a byte-level pipeline; a class other than the one registered for the folder's
    ``config.json`` model type; checkpoints it lists by name), or a folder holding the class's own vocabulary files
    (they are saved with it)."""
    from fnmatch import fnmatch

    from transformers.models.auto.tokenization_auto import (MODEL_IDS_TO_TOKENIZERS_BACKEND, TOKENIZER_MAPPING_NAMES,
                                                            tokenizer_class_from_name)
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    try:
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        model = json.loads((folder / "config.json").read_text(encoding="utf-8")) if (folder / "config.json").is_file() \
            else {}
    except (OSError, ValueError):
        return None
    name = config.get("tokenizer_class") if isinstance(config, dict) else None
    if not isinstance(name, str) or "auto_map" in config or not (folder / "tokenizer.json").is_file():
        return None
    registered = TOKENIZER_MAPPING_NAMES.get(model.get("model_type")) if isinstance(model, dict) else None
    if registered and registered.removesuffix("Fast") != name.removesuffix("Fast"):
        return None
    if any(fnmatch(str(folder).lower(), pattern) for pattern in MODEL_IDS_TO_TOKENIZERS_BACKEND):
        return None
    cls = tokenizer_class_from_name(name)
    if cls is None or not issubclass(cls, TokenizersBackend) or cls.__name__ == "LlamaTokenizer":
        return None
    if any((folder / file).is_file() for key, file in cls.vocab_files_names.items() if key != "tokenizer_file"):
        return None
    if cls is not TokenizersBackend:
        for key, value in vars(cls).items():
            plain = key.startswith("__") and key.endswith("__") and not callable(value)  # __doc__, __module__...
            if not (plain or key == "__init__" or key in _DEFAULTS_ONLY):
                return None
        # the constructor's own defaults (GemmaTokenizer's mask_token="<mask>", GPT-2's errors="replace") apply only
        # where the config is silent: then the constructor, not the saved files, decides
        defaults = inspect.signature(cls.__init__).parameters.values()
        if any(p.default not in (inspect.Parameter.empty, None) and p.name not in config
               for p in defaults if p.name not in ("vocab", "merges")):
            return None
    return cls, config


def saved_tokenizer(folder: Path, trust_remote_code: bool = False):
    """The tokenizer of a folder with the very pipeline its ``tokenizer.json`` saved, for AutoTokenizer's class.

    Why: given the folder alone, transformers 5 rebuilds some classes' pipelines from the class's own defaults;
    Qwen2's then puts an NFC normalizer in front of a saved pipeline that has none (the GGUF's conversion, and every
    checkpoint trained from it), and text with combining marks is encoded otherwise than in training. Handing it the
    saved pipeline (``tokenizer_object=``) keeps it, but the class still builds its own from the file's vocabulary
    and merges first and then deep-copies the one handed in: Gemma-3's tokenizer took 7.7 s to load that way against
    2.0 s read as saved (``benchmarks/load_cost.py``). So where AutoTokenizer would build a class that adds only
    defaults (:func:`_defaults_only_class`: Gemma, Qwen2, GPT-2 and most others), the folder is read by the generic
    fast tokenizer, then given that class and its defaults: what the class's constructor returns, without the
    rebuild (the equality, saved files included, is
    ``integration/test_embedded.py::test_a_folder_tokenizer_is_its_class_read_as_saved``). Any other folder goes
    through AutoTokenizer with the saved pipeline handed in."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    folder = Path(folder)
    found = _defaults_only_class(folder)
    if found is not None:
        cls, config = found
        tokenizer = TokenizersBackend.from_pretrained(str(folder))
        tokenizer.__class__ = cls  # the class adds no method: only its name (saved with the folder) and defaults
        for name in ("padding_side", "truncation_side", "model_input_names"):
            if name not in config:  # the config's value wins over the class's, as in the class's constructor
                value = getattr(cls, name)
                setattr(tokenizer, name, list(value) if isinstance(value, (list, tuple)) else value)
        if cls is not TokenizersBackend:  # the files the class looks for (none here), as its from_pretrained names them
            for key in set(TokenizersBackend.vocab_files_names) - set(cls.vocab_files_names):
                tokenizer.init_kwargs.pop(key, None)
            tokenizer.init_kwargs.update({key: None for key in cls.vocab_files_names if key != "tokenizer_file"})
        return tokenizer
    saved = folder / "tokenizer.json"
    try:
        pipeline = {"tokenizer_object": Tokenizer.from_file(str(saved))} if saved.is_file() else {}
    except Exception:  # noqa: BLE001 - a damaged file: transformers reads it next and names what is wrong
        pipeline = {}
    return AutoTokenizer.from_pretrained(str(folder), trust_remote_code=bool(trust_remote_code), **pipeline)


def folder_tokenizer(folder: Path, what: str, trust_remote_code: bool):
    """The tokenizer of a model folder (:func:`saved_tokenizer`); a ModelError when the folder has no tokenizer files
    or they are damaged."""
    folder = Path(folder)
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise ModelError(f"{what}: {folder} holds no tokenizer (none of {', '.join(TOKENIZER_FILES)}): copy the "
                         "tokenizer files of the model it was trained from into the folder "
                         "(tokenizer.save_pretrained(folder))")
    try:
        return saved_tokenizer(folder, trust_remote_code)
    except RmlibError:
        raise
    except Exception as exc:  # JSON, Unicode, key and type errors, and the tokenizers library's own bare Exception
        names = ", ".join(n for n in TOKENIZER_FILES if (folder / n).is_file())
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ModelError(f"{what}: the tokenizer in {folder} cannot be read ({type(exc).__name__}: {first}); one "
                         f"of its files ({names}) is damaged: copy the tokenizer files again") from None

"""Checks to run before a long sweep (``rmlib check MODEL``): does the model load, is the conversation it will score
the one intended, do the fast path and the reference path agree here, and how long will a full vocabulary take.

:func:`preflight` returns one :class:`CheckResult` per check (``status`` PASS, WARN, FAIL, SKIP or INFO, a
``detail`` sentence and the numbers behind it in ``values``); :func:`has_failure` says whether a long job should
not start; :func:`format_table` is the one table the command prints. What each check means:

* **model loads**: the model, head, score reader (``LoadedModel.reader``), device and dtype.
* **one BOS**: a tokenizer that prepends BOS to a sequence must find exactly one, at position 0, in the templated
  conversation (``answer_slot`` + ``ids_for``); one that prepends none (SmolLM2, whose ``bos_token`` is
  ``<|im_start|>``, the opener of every turn) must not start with two.
* **pad/eos in sequence**: the sequence scored is prefix + candidate + suffix; the *scored suffix* is the candidate
  slot and the template's tokens after it, and the score is read at the last of them (the *read position*). The
  template's *turn end* is its first token after the answer (Llama-3 ``<|eot_id|>``, Gemma ``<end_of_turn>``,
  ChatML ``<|im_end|>``). An end-of-sequence id (the tokenizer's, and the config's and generation config's when
  read from the model's files; Llama-3's include ``<|eot_id|>``) may appear only as that turn end (also where it closes earlier turns): any
  other eos ends the conversation before the score is read -> FAIL. The pad id must not be the token at the read
  position: a model's own forward (transformers' ``*ForSequenceClassification``, and the training that used it)
  reads the last *non-pad* token, one earlier than rmlib reads -> FAIL. The pad id elsewhere (SmolLM2: pad =
  ``<|im_end|>``) is harmless for rmlib's kernels and for a last-non-pad reader, but code that finds the *first* pad
  would read inside the prompt -> WARN for RM heads. An LM's log-prob is read at the prompt's last position, so for
  LMs only the eos rule applies (to the prefix). The candidate itself is any swept id, special ids included
  (flagged ``is_special`` in the results).
* **no date stamp**: the template rendered under two fixed clocks (``strftime_now``, what Llama-3.2 templates call
  for "Today Date: ..."). The sweep cache key holds a hash of the template *source*, not of the rendered
  conversation, so a stamped date is not in the key -> FAIL. A ``date_string`` default (Llama-3.1: "26 Jul 2024";
  rmlib passes none) renders the same every day -> PASS.
* **shared prefix = full**, **batch invariance**: the same 64 candidates (spread over the vocabulary) scored by both
  methods, and at two batch sizes, within :func:`tolerance` of the dtype, in standard deviations of the scores (see
  :data:`TOLERANCE_SD`). A bf16 or fp16 model is checked again with its weights in float32 (the ``(float32)``
  rows), where a 0.1 sd kernel error stands out of rounding; skipped, saying why, when that would not fit.
* **speed / ETA**: a timed sweep (one automatic batch at least), extrapolated to the full vocabulary.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import re
import tempfile
import textwrap
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from rmlib.engine.agreement import TOLERANCE_SD, float32_room, in_float32, tolerance
from rmlib.engine.checks import auto_batch_size, candidate_ids
from rmlib.engine.cost import duration
from rmlib.engine.kernels import supports_shared_prefix
from rmlib.engine.store import dated_fields
from rmlib.engine.token_sweep import sweep
from rmlib.models import LoadedModel, LoadOptions, load_model
from rmlib.models.devices import dtype_name
from rmlib.models.templates import answer_slot

__all__ = ["CheckResult", "STATUSES", "PROMPT", "preflight", "has_failure", "format_table", "TOLERANCE_SD",
           "tolerance", "in_float32", "float32_room", "spread_ids"]

STATUSES = ("PASS", "WARN", "FAIL", "SKIP", "INFO")
PROMPT = "What, in one word, is the greatest thing ever?"
_CLOCKS = (_dt.datetime(2001, 2, 3, 4, 5, 6), _dt.datetime(2032, 11, 27, 21, 22, 23))


@dataclass(frozen=True)
class CheckResult:
    check: str
    status: str
    detail: str
    values: dict = field(default_factory=dict)


def has_failure(results) -> bool:
    return any(r.status == "FAIL" for r in results)


def format_table(results, width: int = 110) -> str:
    """One table, check | result | detail, its columns aligned and each detail wrapped to ``width`` characters."""
    w = max([len("check")] + [len(r.check) for r in results])
    lines = [f"{'check':<{w}}  result  detail", f"{'-' * w}  ------  {'-' * 6}"]
    for r in results:
        wrapped = textwrap.wrap(r.detail, width) or [""]
        lines.append(f"{r.check:<{w}}  {r.status:<6}  {wrapped[0]}")
        lines += [f"{'':<{w}}  {'':<6}  {more}" for more in wrapped[1:]]
    return "\n".join(lines)


def spread_ids(lm: LoadedModel, n: int) -> list[int]:
    """``n`` candidate ids spread evenly over the vocabulary (its ends and special ids included)."""
    vocab = candidate_ids(lm)
    return np.unique(vocab[np.linspace(0, len(vocab) - 1, min(n, len(vocab))).round().astype(int)]).tolist()


def _tok(lm, i) -> str:
    return repr(lm.tokenizer.convert_ids_to_tokens(int(i)))


# --------------------------------------------------------------------------- the checks

def check_load(lm: LoadedModel, seconds: float | None) -> CheckResult:
    n = sum(p.numel() for p in lm.model.parameters())
    what = (f"RM, score reader {lm.reader}" if lm.head == "rm" else "LM, next-token log-probs (no score reader)")
    if lm.head == "rm" and lm.untrained_head:
        what += " on an UNTRAINED random head (speed and arithmetic only, not a reward model)"
    if lm.head == "rm" and lm.spec.head_layout:
        what += ("; rmlib's native head, its layout read from the published code" if lm.spec.head_layout == "read"
                 else "; rmlib's native head, its layout INFERRED (the published code could not be read): the "
                 "tensors fit it, the arithmetic between them is rmlib's reading")
    took = f", loaded in {seconds:.1f} s" if seconds is not None else ""
    detail = (f"{lm.spec.id}: {what}; {n / 1e6:,.1f} M parameters, {dtype_name(lm.dtype)} on {lm.device}{took}")
    return CheckResult("model loads", "PASS", detail, {"reader": lm.reader if lm.head == "rm" else None,
                                                        "head": lm.head, "load_s": seconds})


def _probe(lm) -> int:
    """A plain (non-special) candidate for the checks of the template's own tokens."""
    special = set(lm.tokenizer.all_special_ids)
    return next(int(i) for i in candidate_ids(lm) if int(i) not in special)


def check_bos(lm: LoadedModel, slot) -> CheckResult:
    tok, bos = lm.tokenizer, lm.tokenizer.bos_token_id
    if bos is None:
        return CheckResult("one BOS", "PASS", "the tokenizer has no BOS token", {"n_bos": 0})
    seq = slot.ids_for([_probe(lm)])
    n = seq.count(bos)
    prepends = tok("a").input_ids[:1] == [bos] and tok("a", add_special_tokens=False).input_ids[:1] != [bos]
    if prepends:
        ok = n == 1 and seq[0] == bos
        detail = (f"BOS {_tok(lm, bos)} once, at position 0" if ok else
                  f"BOS {_tok(lm, bos)} appears {n}x (positions {[i for i, t in enumerate(seq) if t == bos][:6]}); "
                  "the model was trained with one at position 0: fix the chat template")
    else:
        ok = seq[:2] != [bos, bos]
        detail = (f"the tokenizer prepends no BOS; {_tok(lm, bos)} (its bos_token) appears {n}x as the template "
                  "renders it" + ("" if ok else ", doubled at the start: fix the chat template"))
    return CheckResult("one BOS", "PASS" if ok else "FAIL", detail, {"n_bos": n, "prepends": prepends})


def _ids_of(*sources) -> set[int]:
    out = set()
    for s in sources:
        if s is None:
            continue
        out |= {int(x) for x in s} if isinstance(s, (list, tuple, set)) else {int(s)}
    return out


def check_pad_eos(lm: LoadedModel, slot) -> CheckResult:
    cfg = lm.model.config
    text_cfg = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    gen = getattr(lm.model, "generation_config", None)
    # A config built in code (tiny models) carries the class's default ids (LlamaConfig: eos 2), which name some
    # other token of a small vocabulary: the configs count only when they were read from the model's files.
    from_files = bool(getattr(cfg, "name_or_path", ""))
    eos = _ids_of(lm.tokenizer.eos_token_id, getattr(text_cfg, "eos_token_id", None) if from_files else None,
                  getattr(gen, "eos_token_id", None)
                  if gen is not None and not getattr(gen, "_from_model_config", False) else None)
    pad = _ids_of(lm.tokenizer.pad_token_id, getattr(text_cfg, "pad_token_id", None))
    prefix, suffix = list(slot.prefix_ids), list(slot.suffix_ids)
    turn_end = suffix[0] if suffix else None
    where = prefix if lm.head == "lm" else prefix + suffix  # an LM reads at the prompt's last position
    stray = sorted({t for t in where if t in eos and t != turn_end})
    late = [i for i, t in enumerate(suffix) if i > 0 and t == turn_end and t in eos]  # the turn end's eos again
    values = {"eos_ids": sorted(eos), "pad_ids": sorted(pad), "turn_end": turn_end, "suffix": suffix}
    if stray or late:
        names = [_tok(lm, t) for t in stray] + [f"{_tok(lm, suffix[i])} at suffix position {i}" for i in late]
        return CheckResult("pad/eos in sequence", "FAIL",
                           f"end-of-sequence id(s) {names} in the conversation other than as the template's turn end "
                           f"({_tok(lm, turn_end) if turn_end is not None else 'none'}, its first token after the "
                           "answer): the model would score a conversation that ended before the score is read; fix "
                           "the chat template", values)
    ends = f"turn end {_tok(lm, turn_end)}" + (" (an eos id)" if turn_end in eos else "") if turn_end is not None \
        else "no turn end after the answer"
    if lm.head == "lm":
        return CheckResult("pad/eos in sequence", "PASS", f"no stray eos in the prompt; {ends}; the pad id is not "
                           "read (an LM's log-prob is read at the prompt's last position)", values)
    read = suffix[-1] if suffix else None
    if read is not None and read in pad:
        return CheckResult("pad/eos in sequence", "FAIL",
                           f"the pad id is {_tok(lm, read)}, the token at the read position: the model's own forward "
                           "(and training with it) reads the last non-pad token, one earlier than rmlib reads; give "
                           "the tokenizer and config a pad token of its own", values)
    inside = sorted({t for t in prefix + suffix if t in pad})
    if inside:
        return CheckResult("pad/eos in sequence", "WARN",
                           f"the pad id {[_tok(lm, t) for t in inside]} also appears inside the conversation (not at "
                           f"the read position); {ends}. rmlib reads the last position itself and a last-non-pad "
                           "reader agrees, but code that finds the FIRST pad would read inside the prompt", values)
    return CheckResult("pad/eos in sequence", "PASS",
                       f"no pad id in the conversation; {ends}; no other eos; score read at "
                       f"{_tok(lm, read) if read is not None else 'the candidate'}", values)


@contextlib.contextmanager
def _clock(moment: _dt.datetime):
    """transformers' ``strftime_now`` (the templates' clock) reads ``datetime.now`` of its chat-template module."""
    from transformers.utils import chat_template_utils as ctu

    real = ctu.datetime

    class _Fixed(real):
        @classmethod
        def now(cls, tz=None):
            return moment if tz is None else moment.replace(tzinfo=tz)

    ctu.datetime = _Fixed
    try:
        yield
    finally:
        ctu.datetime = real


def check_date(lm: LoadedModel, prompt: str) -> CheckResult:
    renders = []
    for moment in _CLOCKS:
        with _clock(moment):
            s = answer_slot(lm.tokenizer, prompt, lm.chat_template)
        renders.append(list(s.prefix_ids) + [-1] + list(s.suffix_ids))
    source = lm.chat_template
    calls_clock = "strftime_now" in source
    if renders[0] != renders[1]:
        texts = [lm.tokenizer.decode([t for t in r if t >= 0]) for r in renders]
        j = next((k for k, (a, b) in enumerate(zip(*texts)) if a != b), min(map(len, texts)))
        shown = [t[max(0, j - 16):j + 12] for t in texts]
        if dated_fields(source, [s]):  # the rendered ids are in the sweep and answer keys
            return CheckResult("no date stamp", "PASS",
                               f"the template stamps today's date ({shown[0]!r} vs {shown[1]!r} under two clocks); the "
                               "rendered conversation is in the cache key, so another day's sweep is computed, not "
                               "served. Results from different days score different conversations.",
                               {"stamped": True, "in_key": True})
        return CheckResult("no date stamp", "FAIL",
                           f"the template stamps today's date (under two clocks: {shown[0]!r} vs {shown[1]!r}) and "
                           "the date is not in the cache key. Pin the date (a chat template without strftime_now)",
                           {"stamped": True, "in_key": False})
    if calls_clock:
        return CheckResult("no date stamp", "WARN", "the template calls strftime_now but rendered the same under two "
                           "clocks (a branch this conversation does not take?); check it by hand",
                           {"stamped": None, "in_key": False})
    if "date_string" in source:
        text = lm.tokenizer.decode([t for t in renders[0] if t >= 0])
        found = re.search(r"Today Date:[^\n<]*", text)
        return CheckResult("no date stamp", "PASS", "the template's date_string keeps its fixed default (rmlib passes "
                           f"none){': ' + repr(found.group(0)) if found else ''}; the same every day",
                           {"stamped": False, "in_key": True})
    return CheckResult("no date stamp", "PASS", "the template renders no date", {"stamped": False, "in_key": True})


def _agreement(name, a, b, dtype, what) -> CheckResult:
    """Two scorings of the same candidates against :func:`tolerance`, in standard deviations of the scores."""
    tol = tolerance(dtype)
    sd = float(np.std(b))
    diff = float(np.abs(a - b).max())
    in_sd = diff / sd if sd else (0.0 if diff == 0 else float("inf"))
    values = {"max_abs": diff, "sd": sd, "diff_sd": in_sd, "tol_sd": tol, "dtype": dtype_name(dtype)}
    detail = (f"{what}: max |diff| {diff:.3g} = {in_sd:.2g} sd of the scores (sd {sd:.3g}; tolerance {tol:g} sd "
              f"in {dtype_name(dtype)})")
    if in_sd > tol:
        return CheckResult(name, "FAIL", detail + ": beyond rounding; do not trust the faster path here", values)
    if diff == 0:
        return CheckResult(name, "PASS", f"{what}: bit-identical ({dtype_name(dtype)})", values)
    if dtype != torch.float32:
        detail += (f"; {dtype_name(dtype)} rounding hides an error below {tol:g} sd, so the float32 rows test the "
                   "kernels")
    return CheckResult(name, "PASS", detail, values)


def check_methods(lm, prompt, ids, slot, root, suffix: str = "") -> tuple[CheckResult, CheckResult]:
    names = (f"shared prefix = full{suffix}", f"batch invariance{suffix}")
    if lm.head == "lm":
        why = "an LM sweep reads every token's log-prob from one forward of the prompt: no kernel or batch to compare"
        return CheckResult(names[0], "SKIP", why), CheckResult(names[1], "SKIP", why)
    run = dict(tokens=ids, cache=False, cache_root=root, progress=False)
    full = sweep(lm, prompt, method="full", **run).frame.score.to_numpy()
    total = len(slot.prefix_ids) + 1 + len(slot.suffix_ids)
    if supports_shared_prefix(lm, total):
        shared = sweep(lm, prompt, method="shared_prefix", **run).frame.score.to_numpy()
        first = _agreement(names[0], shared, full, lm.dtype, f"{len(ids)} tokens")
        method = "shared_prefix"
    else:
        first = CheckResult(names[0], "SKIP", "sweeps of this model use method=full here (the shared "
                            "prefix needs transformers' attention modules and a conversation within any sliding "
                            "window): nothing to compare")
        method = "full"
    small = 7 if len(ids) > 7 else 1
    big = sweep(lm, prompt, method=method, batch_size=len(ids), **run).frame.score.to_numpy()
    little = sweep(lm, prompt, method=method, batch_size=small, **run).frame.score.to_numpy()
    second = _agreement(names[1], little, big, lm.dtype,
                        f"{method}, batch {len(ids)} vs {small}")
    return first, second


def check_speed(lm, prompt, root, timing_tokens: int | None = None) -> CheckResult:
    vocab = len(candidate_ids(lm))
    slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    if lm.head == "lm":
        t0 = time.perf_counter()
        sweep(lm, prompt, cache=False, cache_root=root, progress=False)
        took = time.perf_counter() - t0
        return CheckResult("speed / ETA", "INFO", f"a full-vocabulary LM sweep ({vocab:,} tokens) is one forward of "
                           f"the prompt: measured {duration(took)} on {lm.device} (with decoding and writing every token's row)",
                           {"tokens_per_s": vocab / took, "eta_s": took, "vocab": vocab, "timed_tokens": vocab})
    total = len(slot.prefix_ids) + 1 + len(slot.suffix_ids)
    method = "shared_prefix" if supports_shared_prefix(lm, total) else "full"
    bs = auto_batch_size(lm, 1 + len(slot.suffix_ids) if method == "shared_prefix" else total)
    n = min(vocab, timing_tokens or max(64, bs))
    t0 = time.perf_counter()
    sweep(lm, prompt, tokens=range(n), cache=False, cache_root=root, progress=False)
    took = time.perf_counter() - t0
    rate = n / took
    return CheckResult("speed / ETA", "INFO",
                       f"{n:,} tokens in {took:.2f} s = {rate:,.0f} tok/s ({method}, batch {bs}, {lm.device}); full "
                       f"vocabulary {vocab:,} tokens: ETA {duration(vocab / rate)} for one prompt",
                       {"tokens_per_s": rate, "eta_s": vocab / rate, "vocab": vocab, "timed_tokens": n,
                        "batch_size": bs, "method": method})


def _float32_rows(lm, prompt, ids, slot, root) -> list[CheckResult]:
    """The two agreement checks again with the weights in float32 (:func:`in_float32`), where they can see a 0.1 sd
    error; skipped, with the numbers, when the float32 weights would not fit where the model is."""
    names = ("shared prefix = full (float32)", "batch invariance (float32)")
    short = float32_room(lm)
    if short:
        why = (f"the weights in float32 do not fit where the model is ({short}); the {dtype_name(lm.dtype)} rows "
               f"above cannot see a kernel error below {tolerance(lm.dtype):g} sd: check the kernels in float32 on "
               "a machine that holds it, or on a small model of the same architecture (benchmarks/gpu_check.py --dry)")
        return [CheckResult(names[0], "SKIP", why), CheckResult(names[1], "SKIP", why)]
    with in_float32(lm) as lm32:
        pair = _guarded(names[0], check_methods, lm32, prompt, ids, slot, root, " (float32)")
    return list(pair) if isinstance(pair, tuple) else [pair]


# --------------------------------------------------------------------------- all of them

def _guarded(name, fn, *args):
    """A check that raises is a FAIL with its error, not a traceback: a pre-flight reports everything it can."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - reported, and the status makes the command fail
        return CheckResult(name, "FAIL", f"raised {type(exc).__name__}: {exc}")


def preflight(model, prompt: str = PROMPT, *, load: LoadOptions | None = None, n_tokens: int = 64,
              timing_tokens: int | None = None) -> list[CheckResult]:
    """Every check, in order, on ``model`` (a LoadedModel, or an id loaded here with ``load``). Nothing is cached:
    the sweeps write to a temporary folder that is removed."""
    load_s = None
    if not isinstance(model, LoadedModel):
        t0 = time.perf_counter()
        try:
            model = load_model(model, load)
        except Exception as exc:  # noqa: BLE001 - a model that does not load is the first failed check
            return [CheckResult("model loads", "FAIL", f"{type(exc).__name__}: {exc}")]
        load_s = time.perf_counter() - t0
    lm = model
    results = [check_load(lm, load_s)]
    try:
        slot = answer_slot(lm.tokenizer, prompt, lm.chat_template)
    except Exception as exc:  # noqa: BLE001
        return results + [CheckResult("chat template", "FAIL", f"{type(exc).__name__}: {exc}")]
    results += [_guarded("one BOS", check_bos, lm, slot), _guarded("pad/eos in sequence", check_pad_eos, lm, slot),
                _guarded("no date stamp", check_date, lm, prompt)]
    with tempfile.TemporaryDirectory(prefix="rmlib-check-") as root:
        ids = spread_ids(lm, n_tokens)
        pair = _guarded("shared prefix = full", check_methods, lm, prompt, ids, slot, root)
        results += list(pair) if isinstance(pair, tuple) else [pair]
        if lm.dtype != torch.float32 and lm.head == "rm":
            results += _float32_rows(lm, prompt, ids, slot, root)
        results.append(_guarded("speed / ETA", check_speed, lm, prompt, root, timing_tokens))
    return results

"""Loading an embedded model (#61): the tokenizer converted from the GGUF at every load (the baseline, as before
2a56ab7) beside the tokenizer folder converted once (``rmlib.models.embedded.tokenizer_dir``), in one process,
interleaved, each load fresh (``load_model``, not the process-wide cache). The folder is also read the way 8d7029f
read it (``tokenizer_class_s``: AutoTokenizer, so the class rebuilds its pipeline, with the saved one handed in and
deep-copied) beside :func:`rmlib.models.files.saved_tokenizer` (``tokenizer_folder_s``), which returns the same
tokenizer.

The de-quantised weights and the tokenizer folder are built before the first timed round (a cold cache pays that
once, in either mode). Each round times, per base: the tokenizer alone and a whole ``load_model(base, head='lm')``.
The CPU's kind and the load average are printed beside the times; the ratio is the least over rounds (the round
least disturbed by anything else running).

    .venv/bin/python benchmarks/load_cost.py --rounds 3
"""
from __future__ import annotations

import argparse
import json
import os
import time

import torch

from rmbook.book.speed import cpu_kind
from rmlib.models import embedded, load_model
from rmlib.registry import get_spec

BASES = ("smollm2-135m-instruct", "gemma3-270m", "qwen2.5-coder-0.5b-instruct")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def by_class(folder):
    """The folder read as at 8d7029f: AutoTokenizer with the saved pipeline handed in (the class rebuilds its own
    from the file's vocabulary and merges, then deep-copies the one handed in)."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, tokenizer_object=Tokenizer.from_file(str(folder / "tokenizer.json")))


def one_round(base: str, dtype: str) -> dict:
    spec = get_spec(base)
    folder_tokenizer = embedded._tokenizer
    out = {"tokenizer_gguf_s": timed(lambda: embedded._gguf_tokenizer(spec)),
           "tokenizer_class_s": timed(lambda: by_class(embedded.tokenizer_dir(spec))),
           "tokenizer_folder_s": timed(lambda: folder_tokenizer(spec, False))}
    out["load_folder_s"] = timed(lambda: load_model(base, head="lm", dtype=dtype))
    try:  # the baseline: every load converts the GGUF's tokenizer again
        embedded._tokenizer = lambda s, trusted: embedded._gguf_tokenizer(s)
        out["load_gguf_s"] = timed(lambda: load_model(base, head="lm", dtype=dtype))
    finally:
        embedded._tokenizer = folder_tokenizer
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    for base in BASES:  # build the cached copies first: a cold cache pays them once in either mode
        embedded.dequantized_dir(get_spec(base), embedded.torch.bfloat16 if args.dtype == "bfloat16"
                                 else embedded.torch.float32)
        embedded.tokenizer_dir(get_spec(base))
    out = {"cpu": cpu_kind(), "load_avg_before": os.getloadavg(), "dtype": args.dtype, "bases": {}}
    for base in BASES:
        rounds = [one_round(base, args.dtype) for _ in range(args.rounds)]
        best = {k: round(min(r[k] for r in rounds), 2) for k in rounds[0]}
        best["load_ratio"] = round(min(r["load_folder_s"] / r["load_gguf_s"] for r in rounds), 3)
        best["saved_per_load_s"] = round(best["load_gguf_s"] - best["load_folder_s"], 2)
        best["tokenizer_ratio_vs_class"] = round(min(r["tokenizer_folder_s"] / r["tokenizer_class_s"]
                                                     for r in rounds), 3)
        out["bases"][base] = best
    out["load_avg_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

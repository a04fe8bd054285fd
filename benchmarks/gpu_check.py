"""The sweep engine on full-size architectures with random weights, built in memory (no hub, no download).

For Llama-3.1-8B, Gemma-2-27B and ArmoRM's gated head on the 8B (rmlib's native head, when importable) this
measures, in one run on one GPU:

* a bf16 matmul peak (8192^3, timed in this run) and the sweep's tokens/s and MFU against it, counting
  2 x non-embedding parameters FLOPs per new position (the candidate and the template's closing tokens; the
  prompt runs once and is not counted, nor is attention's score arithmetic; rmlib skips the last layer's MLP at the
  non-final positions, so this slightly overcounts, by ~1% for the 8B);
* shared-prefix vs full scores of 64 candidates spread over the vocabulary, in bf16 and again with the weights in
  float32 (rmlib.engine.agreement.in_float32, when they fit): max |difference| in sd of the scores, each against
  rmlib.engine.agreement.tolerance of its dtype (bf16 1 sd, rounding only; float32 1e-3 sd, where a 0.1 sd kernel
  error fails);
* the automatic batch size (rmlib.engine.checks.auto_batch_size) and peak GPU memory (torch.cuda.max_memory_allocated).

Weights are random (speed and arithmetic only). The tokenizer is the tiny stand-in of rmlib.models.tiny, used for
the chat template; candidate ids are drawn from the model's whole vocabulary. Each model is freed before the next.

Usage:  python benchmarks/gpu_check.py [--tokens 4096] [--models llama3.1-8b gemma2-27b armorm-8b] [--json out.json]
        python benchmarks/gpu_check.py --dry      # CPU, tiny configs of the same architectures, in seconds
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

PROMPT = "What, in one word, is the greatest thing ever?"
MODELS = ("llama3.1-8b", "gemma2-27b", "armorm-8b")
ARMO_HEAD = dict(num_objectives=19, gating_hidden_dim=1024, gating_n_hidden=3, gating_temperature=10)


def configs(dry: bool) -> dict:
    """name -> (family, architecture or None, config kwargs, attention kernel)."""
    if dry:
        llama = dict(vocab_size=2048, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2)
        gemma = dict(vocab_size=2048, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, head_dim=16, query_pre_attn_scalar=16)
        head = dict(ARMO_HEAD, gating_hidden_dim=32)
    else:
        llama = dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                     num_attention_heads=32, num_key_value_heads=8)
        gemma = dict(vocab_size=256000, hidden_size=4608, intermediate_size=36864, num_hidden_layers=46,
                     num_attention_heads=32, num_key_value_heads=16, head_dim=128, query_pre_attn_scalar=144)
        head = ARMO_HEAD
    llama.update(rms_norm_eps=1e-5, max_position_embeddings=131072, tie_word_embeddings=False,
                 rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                  "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                  "original_max_position_embeddings": 8192})
    gemma.update(attn_logit_softcapping=50.0, final_logit_softcapping=30.0, sliding_window=4096,
                 max_position_embeddings=8192, hidden_activation="gelu_pytorch_tanh")
    return {"llama3.1-8b": ("llama", None, llama, "sdpa"),
            "gemma2-27b": ("gemma2", None, gemma, "eager"),
            "armorm-8b": ("llama", "LlamaForRewardModelWithGating", {**llama, **head}, "sdpa")}


class StandInTokenizer:
    """The tiny tokenizer (chat template, turn markers, a few hundred BPE ids) answering for every id of a
    full-size vocabulary: ids it does not know decode to '<id N>'."""

    def __init__(self, tok, vocab_size: int):
        self._tok, self._vocab = tok, vocab_size

    def __getattr__(self, name):
        return getattr(self._tok, name)

    def __call__(self, *args, **kwargs):
        return self._tok(*args, **kwargs)

    def __len__(self) -> int:
        return self._vocab

    def _name(self, i: int) -> str:
        return self._tok.convert_ids_to_tokens(i) if i < len(self._tok) else f"<id {i}>"

    def convert_ids_to_tokens(self, ids):
        return self._name(int(ids)) if isinstance(ids, (int, np.integer)) else [self._name(int(i)) for i in ids]

    def decode(self, ids, **kwargs):
        ids = [int(i) for i in ids]
        return self._tok.decode(ids, **kwargs) if all(i < len(self._tok) for i in ids) else \
            "".join(self._name(i) for i in ids)

    def batch_decode(self, seqs, **kwargs):
        return [self.decode(s, **kwargs) for s in seqs]


def matmul_peak(device: torch.device, n: int, reps: int) -> float:
    """bf16 FLOP/s of an n^3 matmul on ``device``, best of three timings of ``reps`` products."""
    a = torch.randn(n, n, dtype=torch.bfloat16, device=device)
    b = torch.randn(n, n, dtype=torch.bfloat16, device=device)
    best = 0.0
    for _ in range(4):  # the first is a warm-up
        _sync(device)
        t0 = time.perf_counter()
        for _ in range(reps):
            a @ b
        _sync(device)
        best = max(best, 2 * n ** 3 * reps / (time.perf_counter() - t0))
    return best


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def build(name: str, dry: bool, device: torch.device):
    """A rmlib LoadedModel of random weights, built directly on ``device`` in bf16 (no CPU copy)."""
    from transformers import AutoModelForSequenceClassification, Gemma2Config, LlamaConfig

    from rmlib.models import LoadedModel
    from rmlib.models.tiny import tiny_tokenizer
    from rmlib.registry import ModelSpec

    family, architecture, kwargs, attention = configs(dry)[name]
    tok = StandInTokenizer(tiny_tokenizer(family), kwargs["vocab_size"])
    cfg = (LlamaConfig if family == "llama" else Gemma2Config)(**kwargs, num_labels=1, pad_token_id=tok.pad_token_id)
    cfg._attn_implementation = attention
    torch.manual_seed(0)
    reader = "logits0"
    with torch.device(device):
        if architecture is None:
            model = AutoModelForSequenceClassification.from_config(cfg, dtype=torch.bfloat16)
        else:
            from rmlib.models.native_rms import random_native_rm  # its head in float32, as a load keeps it
            model = random_native_rm(architecture, cfg, torch.bfloat16)
            reader = "armo_gated"
    model = model.to(device).eval()
    spec = ModelSpec(id=f"random-{name}", kind="rm", source="tiny", family=family, score=reader)
    fields = dict(spec=spec, model=model, tokenizer=tok, head="rm", device=device, dtype=torch.bfloat16,
                  chat_template=tok.chat_template, untrained_head=True, resolved_revision="random-weights",
                  reader=reader)
    return LoadedModel(**fields)


def non_embedding_params(model) -> int:
    backbone = model.base_model
    return sum(p.numel() for p in backbone.parameters()) - backbone.get_input_embeddings().weight.numel()


def measure(name: str, dry: bool, device: torch.device, n_tokens: int, peak: float) -> dict:
    from rmlib.engine import sweep
    from rmlib.engine.checks import auto_batch_size
    from rmlib.engine.kernels import supports_shared_prefix
    from rmlib.engine.agreement import float32_room, in_float32, tolerance
    from rmlib.engine.preflight import spread_ids
    from rmlib.models.templates import answer_slot

    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    lm = build(name, dry, device)
    built = time.perf_counter() - t0
    row = {"model": name, "reader": getattr(lm, "reader", lm.spec.score), "build_s": built,
           "params_b": sum(p.numel() for p in lm.model.parameters()) / 1e9,
           "non_embedding_b": non_embedding_params(lm.model) / 1e9, "vocab": len(lm.tokenizer)}
    slot = answer_slot(lm.tokenizer, PROMPT, lm.chat_template)
    new = 1 + len(slot.suffix_ids)
    total = len(slot.prefix_ids) + new
    method = "shared_prefix" if supports_shared_prefix(lm, total) else "full"
    bs = auto_batch_size(lm, new if method == "shared_prefix" else total)
    row.update(method=method, prefix_tokens=len(slot.prefix_ids), new_positions=new, auto_batch=bs)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as root:
        run = dict(cache=False, cache_root=root, progress=False)
        ids = spread_ids(lm, 64)
        def agreement(model):
            full = sweep(model, PROMPT, tokens=ids, method="full", **run).frame.score.to_numpy()
            shared = sweep(model, PROMPT, tokens=ids, method="shared_prefix", **run).frame.score.to_numpy()
            diff, sd = float(np.abs(shared - full).max()), float(full.std())
            return diff, sd, (diff / sd if sd else None), float(np.abs(full).max())

        diff, sd, in_sd, scale = agreement(lm)
        tol = tolerance(torch.bfloat16)
        row.update(max_abs_diff=diff, score_sd=sd, max_abs_score=scale, diff_over_sd=in_sd,
                   diff_over_max=diff / scale if scale else None, tolerance_sd=tol,
                   within_tolerance=in_sd is not None and in_sd <= tol)
        short = float32_room(lm)
        if short:
            row.update(fp32_diff_over_sd=None, fp32_skipped=f"float32 weights do not fit: {short}")
        else:
            with in_float32(lm) as lm32:
                _, _, in_sd32, _ = agreement(lm32)
            row.update(fp32_diff_over_sd=in_sd32, fp32_tolerance_sd=tolerance(torch.float32),
                       within_tolerance=row["within_tolerance"] and in_sd32 is not None
                       and in_sd32 <= tolerance(torch.float32))
        n = min(n_tokens, row["vocab"])
        sweep(lm, PROMPT, tokens=range(min(bs, n)), **run)  # warm-up at the timed batch shape
        _sync(device)
        t0 = time.perf_counter()
        sweep(lm, PROMPT, tokens=range(n), **run)
        _sync(device)
        took = time.perf_counter() - t0
    rate = n / took
    flops = rate * new * 2 * non_embedding_params(lm.model)
    row.update(timed_tokens=n, timed_s=took, tokens_per_s=rate, tflops=flops / 1e12, mfu=flops / peak,
               eta_full_vocab_s=row["vocab"] / rate,
               peak_gpu_gib=torch.cuda.max_memory_allocated(device) / 2 ** 30 if device.type == "cuda" else None)
    del lm
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return row


def run(dry: bool = False, models=MODELS, n_tokens: int | None = None) -> dict:
    device = torch.device("cpu" if dry else "cuda")
    if not dry and not torch.cuda.is_available():
        raise SystemExit("no CUDA device: run on a GPU machine, or pass --dry for the CPU code path")
    n_tokens = n_tokens or (256 if dry else 4096)
    started = time.perf_counter()
    peak = matmul_peak(device, 256 if dry else 8192, 5 if dry else 20)
    import transformers
    report = {"device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu", "dry": dry,
              "torch": torch.__version__, "transformers": transformers.__version__,
              "matmul_peak_tflops": peak / 1e12, "matmul_n": 256 if dry else 8192, "rows": []}
    for name in models:
        try:
            report["rows"].append(measure(name, dry, device, n_tokens, peak))
        except ImportError as exc:
            report["rows"].append({"model": name, "skipped": f"native head not importable yet ({exc})"})
        except Exception as exc:  # noqa: BLE001 - one model's failure (OOM, a kernel error) is a row, not the end
            report["rows"].append({"model": name, "skipped": f"{type(exc).__name__}: {exc}"})
            gc.collect()
            if device.type == "cuda":
                torch.cuda.empty_cache()
    report["total_s"] = time.perf_counter() - started
    return report


def _f(x, fmt):
    return "-" if x is None else format(x, fmt)


def table(report: dict) -> str:
    lines = [f"device {report['device']}, torch {report['torch']}, transformers {report['transformers']}; bf16 matmul "
             f"{report['matmul_n']}^3: {report['matmul_peak_tflops']:.3g} TFLOP/s (measured in this run); "
             f"total {report['total_s']:.0f} s" + (" — DRY RUN (CPU, tiny configs): not GPU figures" if report["dry"]
                                                   else ""), "",
             "| model | reader | params (B) | method | auto batch | tokens | tok/s | TFLOP/s | MFU | full vocab ETA | "
             "shared-full max abs | / sd (bf16) | / max abs | / sd (fp32) | within tol | peak GPU GiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if "skipped" in r:
            lines.append(f"| {r['model']} | skipped: {r['skipped']} |" + " |" * 14)
            continue
        lines.append(f"| {r['model']} | {r['reader']} | {r['params_b']:.2f} | {r['method']} | {r['auto_batch']} | "
                     f"{r['timed_tokens']} | {r['tokens_per_s']:,.0f} | {r['tflops']:.3g} | {r['mfu']:.1%} | "
                     f"{r['eta_full_vocab_s']:.1f} s | {r['max_abs_diff']:.3g} | {_f(r['diff_over_sd'], '.3g')} | "
                     f"{_f(r['diff_over_max'], '.3g')} | {_f(r.get('fp32_diff_over_sd'), '.2g')} | "
                     f"{'yes' if r['within_tolerance'] else 'NO'} | "
                     f"{_f(r['peak_gpu_gib'], '.1f')} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dry", action="store_true", help="CPU, tiny configs of the same architectures (seconds)")
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--tokens", type=int, default=None, help="candidates in each timed sweep (default 4096; dry 256)")
    p.add_argument("--json", default=None, help="also write the report to this JSON file")
    args = p.parse_args(argv)
    report = run(args.dry, args.models, args.tokens)
    print(table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a plan costs, counted from each model's architecture, and how its jobs are spread over workers.

An **estimate, not a measurement**: FLOPs are counted from the dimensions the registry records for a model
(``arch:``, from its config.json), and turned into time at an assumed fraction of a GPU's peak (MFU). Model loading,
tokenisation, the CPU side and attention's score/softmax arithmetic (under 1% at these lengths) are not counted.

* An RM sweep on the shared-prefix path (id-exact mode, what the paper RMs run): the prefix once, then per candidate
  only its new positions (the candidate and the template's closing tokens), ``2 x N`` FLOPs a position for ``N``
  non-embedding parameters. On the full path (``mode: paper``) every candidate is a whole conversation
  (prefix + candidate + suffix positions).
* Prefix lengths: the family's template positions (:data:`TEMPLATES`, checked against the tiny models' templates)
  plus the prompt's words and punctuation marks (the real tokenizers keep common English words whole). A model whose
  own template adds a system block (Llama-3.1's date header) has a longer prefix: that changes the small prefix term
  on the shared path, and makes the full-path figure a lower bound.

:func:`worker_groups` is how :mod:`rmlib.engine.plan_runner` gives jobs to workers: one group per model unless the
plan has more workers than that fills, when a model costing more than a worker's share is split into several groups
of its prompts (each loads the model once; every job keeps its own cache key). :func:`estimate` schedules the groups
longest first over the workers and reports the makespan.
"""
from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field

from rmlib.engine.checks import SweepError
from rmlib.engine.plan import Job, _spec, expand, load_plan
from rmlib.engine.tokens import parse_tokens

__all__ = ["GPUS", "TEMPLATES", "Gpu", "JobCost", "Group", "Estimate", "non_embedding_params", "prompt_tokens",
           "job_cost", "job_seconds", "worker_groups", "makespan", "estimate", "DEFAULT_MFU", "WORKER_COUNTS"]

DEFAULT_MFU = 0.5            # an assumption, not a measurement: no GPU run of this engine has been timed
WORKER_COUNTS = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class Gpu:
    name: str
    peak: dict              # dtype -> dense peak FLOP/s
    memory_gb: int


# Dense (no sparsity) peaks from NVIDIA's H100/H200 SXM data sheets: 989 TFLOP/s in bf16 and fp16 on both (the H200
# is the same GH100 compute with more, faster memory); float32 without TF32 (torch's default for matmuls) 67.
GPUS = {"h100": Gpu("H100 SXM", {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12}, 80),
        "h200": Gpu("H200 SXM", {"bfloat16": 989e12, "float16": 989e12, "float32": 67e12}, 141)}


@dataclass(frozen=True)
class Template:
    prefix: int        # positions of the template around the prompt (BOS, turn markers, role names, newlines)
    new: int           # new positions per candidate: the candidate and the closing tokens after it
    norms: int         # RMSNorm weight vectors per layer
    tiny: str          # the tiny model (rmlib.models.tiny) that reproduces this family's chat format


# Llama-3: <|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n PROMPT <|eot_id|><|start_header_id|>
# assistant<|end_header_id|>\n\n = 10 + prompt; then the candidate and <|eot_id|> (2). Gemma-2: <bos><start_of_turn>
# user\n PROMPT <end_of_turn>\n<start_of_turn>model\n = 9 + prompt; then the candidate, <end_of_turn> and \n (3).
TEMPLATES = {"llama3": Template(prefix=10, new=2, norms=2, tiny="llama"),
             "gemma2": Template(prefix=9, new=3, norms=4, tiny="gemma2")}

_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}
_SHORT = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


def non_embedding_params(arch: dict, family: str) -> int:
    """Parameters outside the token embedding: attention (q, k, v, o), the gated MLP (gate, up, down) and the
    norms of every layer, and the final norm. The RM's score head (hidden x a few outputs) is left out."""
    h, q, kv = arch["hidden"], arch["heads"] * arch["head_dim"], arch["kv_heads"] * arch["head_dim"]
    layer = h * q + 2 * h * kv + q * h + 3 * h * arch["intermediate"] + _template(family).norms * h
    return arch["layers"] * layer + h


def prompt_tokens(text: str) -> int:
    """Tokens of a prompt, estimated as its words and punctuation marks."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def _template(family: str) -> Template:
    if family not in TEMPLATES:
        raise SweepError(f"no template positions recorded for family {family!r}; known: {sorted(TEMPLATES)}")
    return TEMPLATES[family]


@dataclass(frozen=True)
class JobCost:
    job: Job
    path: str             # shared_prefix | full | prefix_logits (an LM sweep) | answers
    candidates: int       # rows scored
    new: int              # positions per candidate after the shared prefix (the whole conversation on the full path)
    prefix: int           # prefix positions (run once per job on the shared path)
    flops: float
    dtype: str
    full_flops: float = 0.0   # the same job on the full path (every candidate a whole conversation)

    def seconds(self, gpu: Gpu, mfu: float) -> float:
        return self.flops / (gpu.peak[self.dtype] * mfu)


def job_cost(job: Job) -> JobCost | None:
    """The FLOPs of one job, or None when the registry records no architecture for its model."""
    spec = _spec(job.model)
    if spec is None or not spec.arch:
        return None
    arch, tpl = spec.arch, _template(spec.family)
    n = non_embedding_params(arch, spec.family)
    dtype = job.gpu_dtype or "bfloat16"
    head = dict(job.load).get("head") or spec.kind
    if job.kind == "answers":
        convs = [tpl.prefix + prompt_tokens(p) + prompt_tokens(a) + tpl.new - 1
                 for p in job.prompts for a in job.answers]
        flops = 2.0 * n * sum(convs)
        return JobCost(job, "answers", len(convs), round(sum(convs) / len(convs)), 0, flops, dtype, flops)
    prefix = tpl.prefix + prompt_tokens(job.prompt)
    s = parse_tokens(job.tokens)
    vocab = arch["vocab"]
    cands = vocab if s is None else len(range(vocab)[s]) if isinstance(s, slice) else len(s)  # ids: '1,2,3'
    if head == "lm":  # one forward of the prompt, then the LM head over the vocabulary at its last position
        flops = 2.0 * (n * prefix + arch["hidden"] * vocab)
        return JobCost(job, "prefix_logits", cands, 0, prefix, flops, dtype, flops)
    full = 2.0 * n * cands * (prefix + tpl.new)
    if job.mode == "paper":
        return JobCost(job, "full", cands, prefix + tpl.new, 0, full, dtype, full)
    return JobCost(job, "shared_prefix", cands, tpl.new, prefix, 2.0 * n * (cands * tpl.new + prefix), dtype, full)


def job_seconds(job: Job, gpu: str = "h100", mfu: float = DEFAULT_MFU) -> float | None:
    """The estimated GPU seconds of one job (None: no architecture recorded): what the runner balances."""
    c = job_cost(job)
    return c.seconds(GPUS[gpu], mfu) if c else None


@dataclass(frozen=True)
class Group:
    """The jobs one worker runs after loading one model: all of a model's jobs, or one part of them."""
    model: str
    load: tuple
    jobs: tuple
    part: int = 1
    parts: int = 1
    cost: float = 0.0


def worker_groups(jobs: list[Job], workers: int | None = None, cost=None) -> list[Group]:
    """Jobs grouped by (model, load), in plan order, for ``workers`` workers.

    One group per model unless splitting shortens the schedule: with more than one worker, a model is split into
    ceil(g x its cost / a worker's share) groups of consecutive prompts (share = the plan's cost / workers; at most
    one group per job), for the g in 1..4 whose longest-first schedule (:func:`makespan`) ends first; within 1% of
    that, the fewest groups win, since each group loads its model once. ``cost(job)`` is in any unit (None:
    unknown, counted as the median known cost); without it every job costs 1."""
    by_model: dict[tuple, list[Job]] = {}
    for j in jobs:
        by_model.setdefault((j.model, j.load), []).append(j)
    raw = {j: (cost(j) if cost else 1.0) for j in jobs}
    known = sorted(c for c in raw.values() if c is not None)
    fallback = known[len(known) // 2] if known else 1.0
    costs = {j: fallback if c is None else c for j, c in raw.items()}
    total = sum(costs.values())
    options = [_split(by_model, costs, lambda c, g=g: math.ceil(g * c * workers / total - 1e-9))
               for g in (1, 2, 3, 4)] if workers and workers > 1 and total > 0 else []
    if not options:
        return _split(by_model, costs, lambda c: 1)
    spans = [makespan([grp.cost for grp in o], workers)[0] for o in options]
    return min((o for o, t in zip(options, spans) if t <= 1.01 * min(spans)), key=len)


def _split(by_model: dict, costs: dict, parts_of) -> list[Group]:
    out = []
    for (model, load), group in by_model.items():
        parts = max(1, min(len(group), parts_of(sum(costs[j] for j in group))))
        start = 0
        for i in range(parts):
            size = len(group) // parts + (i < len(group) % parts)
            chunk = tuple(group[start:start + size])
            start += size
            out.append(Group(model, load, chunk, i + 1, parts, sum(costs[j] for j in chunk)))
    return out


def makespan(costs: list[float], workers: int) -> tuple[float, list[int]]:
    """Longest-processing-time-first over ``workers``: each item, longest first, goes to the least loaded worker.
    The finishing time of the last worker, and each item's worker (in the order given)."""
    if workers < 1:
        raise SweepError(f"workers must be at least 1, not {workers}")
    heap = [(0.0, w) for w in range(workers)]
    where = [0] * len(costs)
    for i in sorted(range(len(costs)), key=lambda i: -costs[i]):
        load, w = heapq.heappop(heap)
        where[i] = w
        heapq.heappush(heap, (load + costs[i], w))
    return max(load for load, _ in heap), where


@dataclass
class Estimate:
    costs: list[JobCost]
    unknown: list[Job]           # jobs of models with no recorded architecture
    gpu: Gpu
    mfu: float
    workers: int
    groups: list[Group] = field(default_factory=list)
    wall: dict = field(default_factory=dict)   # workers -> makespan (s)

    def seconds(self, c: JobCost) -> float:
        return c.seconds(self.gpu, self.mfu)

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds(c) for c in self.costs)

    def by_model(self) -> dict[str, list[JobCost]]:
        out: dict[str, list[JobCost]] = {}
        for c in self.costs:
            out.setdefault(c.job.model, []).append(c)
        return out

    def report(self, per_job: bool = True) -> str:
        """What ``rmlib plan PLAN --estimate`` prints: per job, per model, in total."""
        g, lines = self.gpu, []
        peak = g.peak["bfloat16"] / 1e12
        lines += [f"ESTIMATE, not a measurement: FLOPs from each model's recorded architecture; time at an assumed "
                  f"{self.mfu:.0%} MFU of one {g.name}",
                  f"({peak:.0f} TFLOP/s dense bf16/fp16 peak). Loading models, tokenising and the CPU side are "
                  "not counted."]
        if per_job:
            lines += ["", "per job (on one GPU)",
                      f"{'model | prompt':<64} {'path':<13} {'cand.':>7} {'new':>3} {'pre':>3} {'PFLOP':>8} "
                      f"{'GPU-h':>7} {'wall':>8}"]
            for c in self.costs:
                sec = self.seconds(c)
                lines.append(f"{c.job.name[:64]:<64} {c.path:<13} {c.candidates:>7,} {c.new:>3} {c.prefix:>3} "
                             f"{c.flops / 1e15:>8.2f} {sec / 3600:>7.4f} {duration(sec):>8}")
        lines += ["", f"per model (groups: how many workers share its prompts on {self.workers} worker"
                      f"{'s' if self.workers != 1 else ''})",
                  f"{'model':<40} {'non-emb':>7} {'weights':>13} {'jobs':>4} {'EFLOP':>6} {'GPU-h':>6} {'groups':>6}"]
        parts = {grp.model: grp.parts for grp in self.groups}
        for model, cs in self.by_model().items():
            spec = _spec(model)
            n = non_embedding_params(spec.arch, spec.family)
            weights = (n + spec.arch["vocab"] * spec.arch["hidden"]) * _DTYPE_BYTES[cs[0].dtype] / 1e9
            sec = sum(self.seconds(c) for c in cs)
            lines.append(f"{model[:40]:<40} {n / 1e9:>6.2f}B {weights:>5.1f} GB {_SHORT[cs[0].dtype]} {len(cs):>4} "
                         f"{sum(c.flops for c in cs) / 1e18:>6.3f} {sec / 3600:>6.3f} {parts.get(model, 1):>6}")
        for j in self.unknown[:3]:
            lines.append(f"{j.model[:40]:<40} no architecture in the registry: not estimated")
        lines += ["", self.total_line(), *self.wall_lines()]
        full = sum(c.full_flops for c in self.costs)
        if self.costs and full > 1.01 * sum(c.flops for c in self.costs):
            hours = sum(c.full_flops / c.flops * self.seconds(c) for c in self.costs) / 3600
            lines.append(f"the same jobs on the full path (every candidate a whole conversation): {full / 1e18:.2f} "
                         f"EFLOP, {hours:.1f} GPU-hours")
        return "\n".join(lines)

    def total_line(self) -> str:
        flops = sum(c.flops for c in self.costs)
        return (f"total: {len(self.costs)} jobs, {flops / 1e18:.2f} EFLOP, {self.total_seconds / 3600:.2f} GPU-hours "
                f"on {self.gpu.name} at an assumed {self.mfu:.0%} MFU")

    def wall_lines(self) -> list[str]:
        if not self.costs:
            return []
        models = {m: sum(self.seconds(c) for c in cs) for m, cs in self.by_model().items()}
        big = max(models, key=models.get)
        longest = max(self.seconds(c) for c in self.costs)
        n = self.workers
        return [f"wall time on {n} worker{'s' if n != 1 else ''}: {duration(self.wall[n])} (makespan: {len(self.groups)} "
                "worker groups, longest first)",
                f"floor: one model's jobs on one GPU take {duration(models[big])} ({big}); split, the longest job "
                f"takes {duration(longest)}",
                "workers " + " ".join(f"{w:>8}" for w in WORKER_COUNTS),
                "wall    " + " ".join(f"{duration(self.wall[w]):>8}" for w in WORKER_COUNTS)]


def duration(seconds: float) -> str:
    """A time as a person reads it: seconds, minutes or hours."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def _schedule(costs: list[JobCost], workers: int, seconds) -> tuple[float, list[Group]]:
    by_job = {c.job: seconds(c) for c in costs}
    groups = worker_groups([c.job for c in costs], workers, by_job.get)
    return makespan([g.cost for g in groups], workers)[0], groups


def estimate(plan, gpu: str | None = "h100", mfu: float | None = DEFAULT_MFU, workers: int = 1) -> Estimate:
    """FLOPs and GPU time of every job of ``plan``, and the wall time of the plan on ``workers`` GPUs (and on each
    of :data:`WORKER_COUNTS`). Loads no model and needs no network: everything comes from the registry.
    ``gpu``/``mfu`` None: h100, :data:`DEFAULT_MFU`."""
    gpu, mfu = gpu or "h100", DEFAULT_MFU if mfu is None else mfu
    if gpu not in GPUS:
        raise SweepError(f"unknown GPU {gpu!r}; known: {sorted(GPUS)}")
    if not 0 < mfu <= 1:
        raise SweepError(f"mfu is a fraction of the GPU's peak in (0, 1], not {mfu}")
    jobs = expand(load_plan(plan))
    costs, unknown = [], []
    for j in jobs:
        c = job_cost(j)
        (costs if c else unknown).append(c or j)
    est = Estimate(costs, unknown, GPUS[gpu], mfu, workers)
    for n in sorted({*WORKER_COUNTS, workers}):
        est.wall[n], groups = _schedule(costs, n, est.seconds)
        if n == workers:
            est.groups = groups
    return est

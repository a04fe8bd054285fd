"""What the ``rmlib`` commands print, in sentences a reader can follow: a sweep's result (how it was got, what kind
of reward it is, where it was saved, tokens shown as the book shows them), the round-trip audit in short, and the RMs
rmlib trained that the cache holds. Progress goes to stderr on a terminal only (:func:`on_terminal`)."""
from __future__ import annotations

import sys
from rmlib.config import progress_enabled
from rmlib.data.kinds import LM_LOGPROB, RM_SCORE
from rmlib.data.tokens import show_whitespace

__all__ = ["on_terminal", "quiet_libraries", "sweep_report", "audit_summary", "local_rm_lines", "held_out_accuracy"]

SHOWN_AS = "␣ marks a space, ⏎ a newline, \\xNN (\\uNNNN) a control character, ∅ an empty token"


def on_terminal() -> bool:
    """Whether to show progress (loading, the sweep's bar with its ETA): only when stderr is a terminal and
    TQDM_DISABLE is not set, so a pipe or a log file gets the results and nothing else."""
    return progress_enabled() and sys.stderr.isatty()


def quiet_libraries() -> None:
    """Off a terminal, transformers' and the hub's own bars ("Loading weights", downloads) are turned off too."""
    from transformers.utils import logging as hf_logging
    hf_logging.disable_progress_bar()  # the hub's bars as well


def _reward_label(head: str, meta: dict) -> tuple[str, str]:
    """(the column header, the sentence that says what the reward is)."""
    if head == "lm":
        return "log-prob", (f"Reward: {LM_LOGPROB}, the language model's log-probability of each token as the "
                            "answer; not a trained reward model's score.")
    untrained = " It comes from an untrained, random head: not a reward model." if meta.get("untrained_head") else ""
    return RM_SCORE, f"Reward: {RM_SCORE}, the reward model's scalar output for each token as the answer.{untrained}"


def sweep_report(df, meta: dict, *, head: str, model: str, prompt: str, how: str, top: int, saved, out=None) -> str:
    """The printed result of ``rmlib sweep``: one sentence on what was scored and how it was got (``how``: computed
    now, or served from the cache), the reward kind, where the rows are (the cache folder ``saved``, and ``out``),
    then the ``top`` highest and lowest tokens."""
    header, kind = _reward_label(head, meta)
    value = "score" if head == "rm" else "logprob"
    ranked = df.sort_values(value, ascending=False)

    def table(rows) -> str:
        return (rows.assign(token=[show_whitespace(t) for t in rows["text"]])[["token_id", "token", value]]
                .rename(columns={value: header}).to_string(index=False))

    return "\n".join([
        f"Scored {len(df)} tokens of {model} as the one-token answer to {prompt!r}: {how}.",
        kind,
        f"Saved in the cache: {saved} (key {meta.get('key')})" + (f"; the rows are also in {out}." if out else "."),
        "", f"top {top} by {header}:", table(ranked.head(top)),
        "", f"bottom {top} by {header}:", table(ranked.tail(top)),
        "", f"({SHOWN_AS})"])


def audit_summary(report: dict, n_ids: int = 8) -> str:
    """The round-trip audit in a few lines: how many ids do not round-trip, of which kinds, a few distinct
    examples (each with how many ids change alike), and the leading BOS count of each mode."""
    n, k = report["n_ids"], report["n_changed"]
    share = f" ({k / n:.1%})" if n else ""
    lines = [f"{report['model']}: {k} of {n} token ids{share} do not survive decode -> encode"
             + (":" if k else ".")]
    lines += [f"  {count:>7}  {kind}" for kind, count in report.get("by_kind", {}).items()]
    examples = report.get("distinct_examples", [])
    if examples:
        lines.append("examples (id: decoded text, ␣ a space, \\xNN a control character -> re-encoded ids):")
    for x in examples:
        ids = ", ".join(map(str, x["encoded"][:n_ids])) + (", ..." if len(x["encoded"]) > n_ids else "")
        alike = f"  (and {x['n_ids'] - 1} more ids alike)" if x["n_ids"] > 1 else ""
        lines.append(f"  {x['id']:>7}: {show_whitespace(x['decoded'])} -> [{ids}]{alike}")
    lines.append(f"leading BOS tokens: {report['paper_mode_leading_bos']} in paper mode, "
                 f"{report['id_exact_leading_bos']} in id-exact mode")
    lines.append("(--json prints the whole report)")
    return "\n".join(lines)


def held_out_accuracy(row: dict) -> str:
    """A trained RM's held-out pairwise accuracy as recorded: in its run file, else the newest held-out evaluation
    that :func:`rmbook.chapters.finetuning.analysis.evaluate_run` cached in a checkpoint's folder (latest step first);
    "not recorded" when there is none."""
    for key in ("held_out_accuracy", "test_accuracy", "accuracy"):
        value = row["run"].get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{value:.3f}"
    import pandas as pd
    for step in sorted(row["checkpoints"], reverse=True):
        files = sorted((row["path"] / f"step-{step}").glob("eval-*-metrics.parquet"), key=lambda p: p.stat().st_mtime)
        for f in reversed(files):
            try:
                m = pd.read_parquet(f, columns=["accuracy", "n_test"]).iloc[0]
            except Exception:  # noqa: BLE001 - a damaged evaluation cache is only not shown
                continue
            of = "" if step == row["steps"] else f" of {row['steps']}"
            return f"{float(m['accuracy']):.3f} (step {step}{of}, {int(m['n_test'])} test pairs)"
    return "not recorded"


def local_rm_lines(rows: list[dict]) -> list[str]:
    """The section of ``rmlib models`` on the RMs rmlib trained in this cache (rows of
    :func:`rmlib.trained.local_rms`): id, kind, base, data and held-out accuracy."""
    if not rows:
        return ["Trained RMs in this cache (local:): none yet (the finetuning chapter trains them, or rmlib.train)."]
    table = [("id", "kind", "base", "data", "held-out accuracy")]
    for r in rows:
        if r["problem"]:
            table.append((r["id"], r["kind"], "?", "?", f"run file unreadable: {r['problem']}"))
            continue
        data = "+".join(r["sources"]) or "?"
        data += f", {r['n_pairs']} pairs" if r["n_pairs"] is not None else ""
        data += ", DPO (implicit RM)" if r["objective"] == "dpo" else ""
        table.append((r["id"], r["kind"], r["base_model"] or "unknown", data, held_out_accuracy(r)))
    widths = [max(len(str(t[i])) for t in table) for i in range(4)]
    return ["Trained RMs in this cache (local:):"] + [
        "  ".join(f"{str(c):<{w}}" for c, w in zip(t[:4], widths)) + f"  {t[4]}" for t in table]

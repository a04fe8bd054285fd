"""The papers whose claims the book judges, in the order the claims page lists them: a claim names its paper by one
of these labels, and the page lists the papers in :data:`PAPERS` order (a paper not listed after them, by name) and
each paper's claims by their ``place``."""
from __future__ import annotations

__all__ = ["FACCT", "ICLR", "RAZIN", "PAPERS", "FACCT_ABSTRACT", "ICLR_ABSTRACT"]

FACCT = "FAccT 2025"
ICLR = "ICLR 2026"
RAZIN = "Razin et al. 2025"  # the reward-model quality chapters test their claims
PAPERS = (FACCT, ICLR, RAZIN)
FACCT_ABSTRACT = "FAccT 2025 abstract (arXiv 2506.07326)"
ICLR_ABSTRACT = "ICLR 2026 abstract (arXiv 2601.20838)"

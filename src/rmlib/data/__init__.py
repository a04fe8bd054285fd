"""Research data for rmlib (layer 1): provenance (``sources.yml``, package data), checksummed fetching, and tidy loaders.

Start with `rmlib data fetch` (or `make data`), then call the loaders, e.g. `load_elo()`,
`load_dictionary_scores("big2")`, `load_preferences("hh_rlhf_harmless")`. Columns are documented in each
loader's docstring and in data/README.md. Nothing here imports torch: the labels of the `reward_kind` column
(:mod:`rmlib.data.kinds`) and every published score load without a model library.

* ``manifest.py``: the data manifest (``sources.yml`` beside it): which files exist, where they come from, their sha256;
* ``fetch.py``: fills the data directory from a mirror or the original URLs, verifying every sha256 (``DataError``);
* ``files.py``: the verified local path of a data file (:func:`path`) and the per-process caches of parsed frames;
* ``paper_rms.py``: family, size and developer of the 10 paper RMs, read from :mod:`rmlib.registry` (no drift);
* ``elo.py``: EloEverything, 7,530 items with human Elo ratings and the paper RMs' scores under 3 prompts;
* ``dictionary_scores.py``: the ICLR 2026 paper's scores (10 RMs x 54 prompts x words) and checkpoint median ranks;
* ``published.py``: the papers' released scores in the long shapes the chapters analyse, labelled by reward kind;
* ``prompts.py``: the prompts of both papers (optimal/pessimal, the extra EloEverything ones, the 54-prompt design);
* ``lexicons.py``: word lists and norms (Big Two, LIWC wildcards, MFD2, AFINN, Hu-Liu, Warriner, VADER) on ``word``;
* ``affect.py``: word valence from AFINN, VADER and Warriner, on one centred scale per lexicon;
* ``frequency.py``: word frequency per million (BNC, ``wordfreq``) and :func:`token_frequency` for tokens;
* ``identity.py``: identity terms (HolisticBias descriptors, Dixon et al. adjectives) with the chapter's flags;
* ``preferences.py``: preference pairs from six public sources in one schema, seeded subsampling and splitting;
* ``tokens.py``: which single vocabulary tokens spell a word, and which words need several (none dropped silently);
* ``slurs.py``: the slurs WordNet 3.0 itself labels as such (documented rules), for the book's masked view;
* ``wordnet.py``: WordNet 3.0 through NLTK, read from the verified data directory (nothing downloaded);
* ``kinds.py``: the labels of the ``reward_kind`` column, in one place, importable without torch.
"""
from __future__ import annotations

from rmlib.data.fetch import DataError
from rmlib.data.files import clear_caches, path
from rmlib.data.affect import AFFECT_SOURCES, affect_table, valence_extremeness, word_affect
from rmlib.data.dictionary_scores import load_checkpoint_ranks, load_dictionary_scores
from rmlib.data.elo import elo_items, elo_models, even_spread, load_elo
from rmlib.data.frequency import (
    FREQUENCY_SOURCES,
    frequency_table,
    load_bnc,
    normalise_token,
    token_frequency,
    word_frequency,
)
from rmlib.data.identity import (
    AMBIGUOUS_ITEMS,
    DIXON_AXES,
    NOUN_FORMS,
    PEJORATIVE_IN_SOME_USES,
    identity_terms,
    load_dixon,
    load_holistic_bias,
)
from rmlib.data.kinds import DPO_KIND, LM_LOGPROB, MWLR_KIND, RM_SCORE, RM_SCORE_PUBLISHED, is_lm_logprob
from rmlib.data.lexicons import (
    VALUE_LEXICONS,
    expand_wildcards,
    load_afinn,
    load_big_two,
    load_bing_liu,
    load_mfd2,
    load_pietraszkiewicz,
    load_vader,
    load_warriner,
    value_lexicon,
)
from rmlib.data.preferences import SOURCES as PREFERENCE_SOURCES
from rmlib.data.preferences import load_preferences, sample_pairs, split_pairs
from rmlib.data.prompts import ELO_PROMPTS, EloPrompt, design_prompts, load_prompts, parse_prompt_key, prompt_table, prompt_text
from rmlib.data.published import (
    DESIGN_COLUMNS,
    DICTIONARIES,
    published_elo_scores,
    published_value_scores,
    published_word_scores,
    value_columns,
)
from rmlib.data.tokens import TokenMatch, decoded_vocabulary, match_words_to_tokens
from rmlib.data.wordnet import load_wordnet

__all__ = [
    "DataError", "path", "clear_caches",
    # published scores (reward column: `reward`, labelled by `reward_kind`)
    "load_elo", "elo_items", "elo_models", "even_spread", "load_dictionary_scores", "load_checkpoint_ranks", "published_word_scores",
    "published_elo_scores", "published_value_scores", "value_columns", "DICTIONARIES", "DESIGN_COLUMNS",
    # prompts
    "load_prompts", "parse_prompt_key", "prompt_table", "prompt_text", "design_prompts", "ELO_PROMPTS", "EloPrompt",
    # lexicons, affect and frequency
    "load_big_two", "load_pietraszkiewicz", "expand_wildcards", "load_mfd2", "load_afinn", "load_bing_liu",
    "load_warriner", "load_vader", "value_lexicon", "VALUE_LEXICONS", "AFFECT_SOURCES", "affect_table",
    "word_affect", "valence_extremeness", "load_bnc", "word_frequency", "token_frequency", "normalise_token",
    "frequency_table", "FREQUENCY_SOURCES",
    # identity terms
    "load_holistic_bias", "load_dixon", "identity_terms", "PEJORATIVE_IN_SOME_USES", "NOUN_FORMS", "DIXON_AXES",
    "AMBIGUOUS_ITEMS",
    # preference pairs, tokens, WordNet
    "load_preferences", "sample_pairs", "split_pairs", "PREFERENCE_SOURCES", "match_words_to_tokens",
    "TokenMatch", "decoded_vocabulary", "load_wordnet",
    # reward kinds
    "RM_SCORE", "RM_SCORE_PUBLISHED", "LM_LOGPROB", "MWLR_KIND", "DPO_KIND", "is_lm_logprob",
]

"""The implicit_rewards exercises' checks pass on the chapter's reference solutions and fail on planted wrong
answers, with a message that names the mistake."""
import numpy as np
import pytest
from scipy.special import log_softmax, softmax

from rmbook import course
from rmbook.book.course import reference_solution


@pytest.mark.parametrize("ex", ["implicit_rewards.answer_logprob", "implicit_rewards.mwlr"])
def test_the_reference_solution_passes(ex):
    assert course.check(ex, reference_solution(ex)).cases >= 3


# planted wrong answers for an answer's log-probability, each with the words the hint must contain
def same_position(logits, ids, p):  # logits[t] scores token t: the off-by-one
    return float(sum(log_softmax(logits[t])[ids[t]] for t in range(p, len(ids))))


def with_prompt(logits, ids, p):  # sums the prompt's tokens too
    return float(sum(log_softmax(logits[t - 1])[ids[t]] for t in range(1, len(ids))))


def raw_logits(logits, ids, p):
    return float(sum(logits[t - 1, ids[t]] for t in range(p, len(ids))))


def log_of_softmax(logits, ids, p):  # exp overflows on large logits
    with np.errstate(all="ignore"):
        probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        return float(sum(np.log(probs[t - 1, ids[t]]) for t in range(p, len(ids))))


def summed_probs(logits, ids, p):
    return float(sum(softmax(logits[t - 1])[ids[t]] for t in range(p, len(ids))))


def flipped(logits, ids, p):
    return -float(sum(log_softmax(logits[t - 1])[ids[t]] for t in range(p, len(ids))))


@pytest.mark.parametrize("wrong, hint", [(same_position, "Off by one"), (with_prompt, "prompt's tokens"),
                                         (raw_logits, "raw logits"), (log_of_softmax, "overflow"),
                                         (summed_probs, "sums probabilities"), (flipped, "sign is flipped")])
def test_answer_logprob_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("implicit_rewards.answer_logprob", wrong)


def mwlr_flipped(a, b):
    return 0.5 * (np.exp(a) + np.exp(b)) * (b - a)


def plain_ratio(a, b):
    return np.asarray(a) - np.asarray(b)


def log_weight(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return 0.5 * (a + b) * (a - b)


def no_half(a, b):
    return (np.exp(a) + np.exp(b)) * (np.asarray(a) - np.asarray(b))


def one_number(a, b):
    return float(np.sum(0.5 * (np.exp(a) + np.exp(b)) * (np.asarray(a) - np.asarray(b))))


@pytest.mark.parametrize("wrong, hint", [(mwlr_flipped, "sign is flipped"), (plain_ratio, "plain log ratio"),
                                         (log_weight, "uses log-probabilities"), (no_half, "½ is missing"),
                                         (one_number, "one value per word")])
def test_mwlr_fails_on_planted_wrong_answers(wrong, hint):
    with pytest.raises(course.CheckFailed, match=hint):
        course.check("implicit_rewards.mwlr", wrong)

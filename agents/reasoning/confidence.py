"""DeepConf's confidence signal, online: a thread whose recent tokens the model itself was
unsure of is stopped when its confidence falls well below the group's.

Token confidence is the negative mean log-probability of the top-k candidates at that position
(high when the model was sure: the alternatives were improbable); a thread's confidence is the
mean over its last `window` tokens (DeepConf's group confidence).
"""

from __future__ import annotations

from collections import deque

from agents.llm import TokenLogprob


def token_confidence(token: TokenLogprob) -> float | None:
    """-mean(log p) over the position's top alternatives; None when the server sent none (the
    sampled token's own log-probability alone does not say how peaked the choice was)."""
    finite = [v for v in token.top.values() if v > float("-inf")]
    return -sum(finite) / len(finite) if finite else None


class WindowConfidence:
    """The mean token confidence of the last `window` tokens of one thread."""

    def __init__(self, window: int) -> None:
        self.window = window
        self._recent: deque[float] = deque(maxlen=window)
        self._sum = 0.0
        self.tokens = 0

    def add(self, tokens: list[TokenLogprob]) -> None:
        for token in tokens:
            value = token_confidence(token)
            if value is None:
                continue
            if len(self._recent) == self.window:
                self._sum -= self._recent[0]
            self._recent.append(value)
            self._sum += value
            self.tokens += 1

    @property
    def ready(self) -> bool:
        """A full window seen (before that, one unsure token would decide)."""
        return len(self._recent) == self.window

    @property
    def value(self) -> float:
        return self._sum / len(self._recent) if self._recent else 0.0


def below_group(mine: float, others: list[float], keep: float) -> bool:
    """Is `mine` below `keep` times the median of the other threads' confidences?"""
    if not others:
        return False
    ordered = sorted(others)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return mine < keep * median

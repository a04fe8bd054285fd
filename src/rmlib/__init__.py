"""rmlib: a thin library behind the reward-model interpretability book."""

__version__ = "0.1.0"

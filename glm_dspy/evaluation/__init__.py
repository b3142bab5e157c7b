"""`glm-dspy eval`: every arm on the same questions (evaluate.py), the arms it can run (arms.py),
the answer metrics (metrics.py) and exact match with its interval (accuracy.py).

Importing this package imports none of them: the CLI checks arm names before it loads a model.
"""

"""Compiled GLM programs: the ones shipped (`glm-<model>.json` and its `.train.json`), and which
one a GLM loads by default (programs.py).

Importing this package reads nothing.
"""

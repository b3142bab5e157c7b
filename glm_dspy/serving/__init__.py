"""`glm-dspy serve`: GLM as an HTTP service (service.py), what it holds at most (limits.py) and
the page it shows at / (page.html).

Importing this package imports none of them.
"""

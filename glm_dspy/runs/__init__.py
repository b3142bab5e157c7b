"""How queries run and what they leave: the step log of one query (steps.py), the durable journal
of every agent call a query completed (journal.py), and many questions on one engine, resumed
from the journal when the engine is lost (batch.py).

Importing this package imports none of them.
"""

"""The graph functions Act's snippets call (retriever.py, GLM paper Table 2): how they read their
arguments (arguments.py), what they answer to bad input (observation.py), FastToG's communities
(communities.py) and RetrieveNode lookups started while Act still decodes (pipeline.py).

Importing this package imports none of them: the snippet worker imports observation.py alone
and must start fast.
"""

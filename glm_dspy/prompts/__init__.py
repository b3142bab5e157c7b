"""What the agents are shown besides their signatures: the adapter that lays out every prompt
(adapter.py), the few-shot demos (fewshot.py, graph_demos.py), what Act is told about the graph
(function_docs.py) and Reason's notebook (notebook.py).

Importing this package imports none of them.
"""

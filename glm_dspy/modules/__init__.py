from glm_dspy.modules.act import ActAgent
from glm_dspy.modules.baselines import BaseLLM, GraphRAG, TextRAG
from glm_dspy.modules.classify import ClassifyAgent
from glm_dspy.modules.counselor import GraphCounselor
from glm_dspy.modules.fasttog import FastToG
from glm_dspy.modules.glm import GLM
from glm_dspy.modules.graphcot import GraphCoT
from glm_dspy.modules.reason import ReasonAgent
from glm_dspy.modules.text2cypher import Text2Cypher

__all__ = ["GLM", "ClassifyAgent", "ReasonAgent", "ActAgent", "GraphCoT", "GraphRAG", "TextRAG", "BaseLLM", "Text2Cypher", "FastToG",
           "GraphCounselor"]

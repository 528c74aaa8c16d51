"""RubricBench: a sandboxed grader for pre-generated, LLM-written code."""

__version__ = "0.1.0"

"""Evaluator: run-directory reader, payload judge, LLM judge, verdict schema."""

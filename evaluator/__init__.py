"""Evaluator: run-directory reader, payload judge, LLM judge, verdict schema.

Public API: `rundir.reader.RunDir`, `evaluator.payload_judge.judge_payload`, `evaluator.llm_judge.judge_llm` /
`LLMJudgeConfig`, `evaluator.judge.judge_run` (pick/combine judges, write verdict.json), `evaluator.verdict`
(`Verdict`, `write_verdict`, `read_verdict`, `check_verdict`), `evaluator.errors`.
"""

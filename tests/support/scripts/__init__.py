"""Scripted model turns for the demo tasks (plan.py: a small planner over OpenClaw's `browser` tool)."""

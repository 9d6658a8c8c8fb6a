"""The web factory (issue 24): seeded generation of small sites with ground truth (oracle, subgoals, distractors),
a scripted solver, and `clawrec factory eval`, which measures clawrec itself on them. See README.md."""

GENERATOR_VERSION = "2"  # 2: the session_steps channel

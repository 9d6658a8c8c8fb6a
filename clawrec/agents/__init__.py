"""Agent adapters: built-in (openclaw, claude, replay, human, command) and the `clawrec.agents` entry points."""

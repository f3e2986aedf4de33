"""The run: one turn's loop (loop.py), one tool call's step (tool_step.py), approvals (approvals.py)."""

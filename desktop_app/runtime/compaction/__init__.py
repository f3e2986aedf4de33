"""Long conversations: which turns a compaction covers (plan.py), the operation (compactor.py), the token
budget (budget.py), context windows (windows.py) and tool-result digests (tool_digest.py)."""

"""The tools a run sees: deferral and per-conversation views (deferral.py), the tool plan (plan.py), what the
Tools panel shows (overview.py), pin/exclude preferences (prefs.py)."""

"""The window's dialogs (provider, welcome, approvals, roots, resources, about, secrets) and the slot that owns
each one while it is open."""

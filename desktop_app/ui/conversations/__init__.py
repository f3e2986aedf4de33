"""The Conversations dock: the stored conversations, searched, grouped and reopened."""

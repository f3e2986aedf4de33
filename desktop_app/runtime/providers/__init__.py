"""Model providers: each translates one wire format into the normalized provider events."""

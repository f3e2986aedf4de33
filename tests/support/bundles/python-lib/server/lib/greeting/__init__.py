"""A package bundled in server/lib (what pip install --target server/lib would leave)."""


def greet() -> str:
    return "greeting from the bundled package"

"""The values a bundle's ``user_config`` asks for: defaults (with ``${HOME}`` …), coercion and checks.

Values are kept typed: ``str`` for string, directory and file; ``float``/``int`` for number; ``bool`` for
boolean; a ``list[str]`` for a directory or file with ``multiple``. ``--set KEY=VALUE`` text is coerced by
:func:`coerce`. Sensitive values are kept in the keyring as ``mcpb:<bundle>:<key>``; the others in the
settings (``extensions.<bundle>.user_config``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from desktop_app.runtime.extensions.manifest import Manifest, UserConfigOption

Value = str | float | int | bool | list[str]


def keyring_name(bundle: str, key: str) -> str:
    return f"mcpb:{bundle}:{key}"


def coerce(key: str, option: UserConfigOption, text: str | list[str]) -> Value:
    """``text`` (from ``--set`` or a form) as the option's type; ``ValueError`` says what is wrong."""
    from desktop_app.runtime.extensions.variables import substitute, system_variables

    if option.type == "boolean":
        raw = text if isinstance(text, str) else ",".join(text)
        lowered = raw.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError(f"{key}: {option.title} must be true or false, not {raw!r}")
    if option.type == "number":
        raw = text if isinstance(text, str) else ",".join(text)
        try:
            number = float(raw)
        except ValueError:
            raise ValueError(f"{key}: {option.title} must be a number, not {raw!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"{key}: {option.title} must be a finite number")
        if option.min is not None and number < option.min:
            raise ValueError(f"{key}: {option.title} must be at least {option.min:g}, not {number:g}")
        if option.max is not None and number > option.max:
            raise ValueError(f"{key}: {option.title} must be at most {option.max:g}, not {number:g}")
        return int(number) if number.is_integer() else number
    variables = system_variables()
    if option.type in ("directory", "file") and option.multiple:
        items = text if isinstance(text, list) else [p for p in text.split(",") if p.strip()]
        return [str(substitute(item.strip(), variables)) for item in items]
    value = text if isinstance(text, str) else ",".join(text)
    return str(substitute(value, variables)) if option.type in ("directory", "file") else value


def default_of(key: str, option: UserConfigOption) -> Value | None:
    """The manifest's default, with ``${HOME}`` and the other system variables substituted."""
    if option.default is None:
        return None
    default = option.default
    if isinstance(default, bool):
        return default if option.type == "boolean" else str(default).lower()
    if isinstance(default, int | float):
        return coerce(key, option, str(default)) if option.type == "number" else str(default)
    return coerce(key, option, default)


def missing(value: Any) -> bool:
    if value is None or value == "":
        return True
    return isinstance(value, list) and (not value or any(v in (None, "") for v in value))


def resolve(
    manifest: Manifest, given: Mapping[str, str | list[str]], kept: Mapping[str, Value]
) -> tuple[dict[str, Value], list[str]]:
    """``(values, missing required keys)``: ``given`` (coerced) over ``kept`` over the defaults.

    A ``given`` key the manifest does not declare raises ``ValueError`` naming the keys it does.
    """
    unknown = sorted(set(given) - set(manifest.user_config))
    if unknown:
        known = ", ".join(sorted(manifest.user_config)) or "none"
        raise ValueError(f"{manifest.name} has no setting {', '.join(unknown)} (its settings: {known})")
    values: dict[str, Value] = {}
    absent: list[str] = []
    for key, option in manifest.user_config.items():
        if key in given:
            value: Value | None = coerce(key, option, given[key])
        elif key in kept:
            value = kept[key]
        else:
            value = default_of(key, option)
        if missing(value):
            if option.required:
                absent.append(key)
            continue
        assert value is not None
        values[key] = value
    return values, absent


__all__ = ["Value", "coerce", "default_of", "keyring_name", "missing", "resolve"]

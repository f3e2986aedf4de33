"""MCP Bundles (``.mcpb``): reading the manifest, refusing what cannot run, installing, launching.

* :mod:`.manifest` — the manifest model (versions 0.1–0.4) and its validation errors;
* :mod:`.archive` — reading a bundle and extracting it safely (zip-slip refused, nothing extracted);
* :mod:`.compat` — platform, runtime and ``uv`` checks, each refusal with its reason;
* :mod:`.user_config` — the values a bundle asks for: defaults, coercion, required fields;
* :mod:`.launch` — ``${__dirname}``, ``${user_config.*}``, ``${HOME}`` … substituted when the server starts (unset
  optional values left out, started in the bundle's folder);
* :mod:`.install` — install, update (keeping the user's values) and uninstall.
* :mod:`.report` — the compatibility report: one works/translated/not available line per manifest part.
"""

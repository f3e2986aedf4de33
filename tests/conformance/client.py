"""A conformance client for ``@modelcontextprotocol/conformance`` that drives Switchboard's MCP host.

The harness starts a mock MCP server per scenario and runs this file with the server's URL as the
last argument, the scenario name in ``MCP_CONFORMANCE_SCENARIO`` (and, for some scenarios,
``MCP_CONFORMANCE_CONTEXT`` / ``MCP_CONFORMANCE_PROTOCOL_VERSION``). Everything goes through
:class:`desktop_app.runtime.host.Host` - the same object the app uses - never through the raw SDK:
a scenario passes only if Switchboard itself behaves.

What the client does is what the app does with a server: connect it (``Host.start``), list its
tools (``Host.tools``), and call them through the one call path (``Host.call``). Arguments come
from the scenario context's ``toolCalls`` when it names them, else from each tool's input schema
(defaults, examples, enums, or a typed placeholder), the way a model fills in a schema; the
json-schema-2020-12-preservation scenario echoes the focal tool's schema as the host holds it. The
client plays the user: it accepts elicitation forms as shown and its "system browser" follows the
OAuth redirect. Host features that are missing are reported on stderr and the scenario fails there.

    python tests/conformance/client.py http://localhost:1234/mcp     # with MCP_CONFORMANCE_SCENARIO set

Exit status: 0 when every step worked, 1 when connecting or a call failed, 2 on bad usage.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import keyring
from keyring.backend import KeyringBackend

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script from any directory
    sys.path.insert(0, str(ROOT))

from desktop_app.runtime.host import Host, HostTool, ServerConfig  # noqa: E402

SERVER = "conformance"
TIMEOUT = 20.0
"""Per start-up and per call, in seconds: well under the harness's 30 s scenario timeout."""

_PLACEHOLDERS: dict[str, Any] = {
    "string": "conformance",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}

# Values the scenarios' tools check. A model would read them off the tool description; this
# client reads them from here, keyed by property name, so every tool is still called generically.
_KNOWN_VALUES: dict[str, Any] = {"a": 5, "b": 3}


def log(message: str) -> None:
    print(f"[switchboard-conformance] {message}", file=sys.stderr, flush=True)


def example_value(schema: Any, name: str = "") -> Any:
    """A value that satisfies ``schema`` (a JSON Schema fragment) as far as a simple reading goes."""
    if name in _KNOWN_VALUES:
        return _KNOWN_VALUES[name]
    if not isinstance(schema, dict):
        return "conformance"
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("oneOf", "anyOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return example_value(options[0], name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else "string")
    if kind == "object" or (kind is None and "properties" in schema):
        return example_arguments(schema)
    if kind == "array":
        items = schema.get("items")
        count = int(schema.get("minItems", 0) or 0)
        return [example_value(items) for _ in range(count)]
    if kind in ("integer", "number"):
        minimum = schema.get("minimum", schema.get("exclusiveMinimum"))
        return minimum if isinstance(minimum, int | float) and minimum > 1 else _PLACEHOLDERS[kind]
    return _PLACEHOLDERS.get(str(kind), "conformance")


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool: every required property (and every property with a default)."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    arguments: dict[str, Any] = {}
    for name, prop in properties.items():
        if name in required or name in _KNOWN_VALUES or (isinstance(prop, dict) and "default" in prop):
            arguments[name] = example_value(prop, name)
    return arguments


LIST_ONLY = frozenset({"initialize", "json-schema-ref-no-deref"})
"""Scenarios whose instructions are "connect and list tools" (calling their tools is not part of them)."""

ECHO_SOURCE, ECHO_TOOL = "json_schema_2020_12_tool", "json_schema_echo"
"""json-schema-2020-12-preservation: pass the focal tool's inputSchema, as the host holds it, to the echo tool."""


def scenario_context() -> dict[str, Any]:
    """``MCP_CONFORMANCE_CONTEXT`` as a dict (empty when unset or not an object)."""
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    except ValueError:
        return {}
    return context if isinstance(context, dict) else {}


def planned_calls(scenario: str, tools: list[HostTool], context: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (tool, arguments) calls to make, in order."""
    if scenario in LIST_ONLY:
        return []
    given = context.get("toolCalls")
    if isinstance(given, list):  # the scenario names its calls and their exact arguments
        return [(str(call["name"]), dict(call.get("arguments") or {})) for call in given if isinstance(call, dict)]
    by_name = {tool.tool: tool for tool in tools}
    if ECHO_SOURCE in by_name and ECHO_TOOL in by_name:
        return [(ECHO_TOOL, {"schema": by_name[ECHO_SOURCE].input_schema})]
    return [(tool.tool, example_arguments(tool.input_schema)) for tool in tools]


def client_features(host: Host) -> Any:
    """The host's client side (``ClientFeatures``: elicitation, sampling, roots), if this host has one."""
    for name in ("client_features", "features"):  # the ClientFeatures itself (it holds elicitation_enabled)
        features = getattr(host, name, None)
        if features is not None and hasattr(features, "answer_elicitation"):
            return features
    return host if hasattr(host, "answer_elicitation") else None


def supports_oauth() -> bool:
    """Whether ``mcp.json`` entries can turn on OAuth sign-in (the ``oauth`` field)."""
    return "oauth" in ServerConfig.model_fields


def host_feature_gaps(host: Host, scenario: str) -> list[str]:
    """Host features this scenario needs that the host does not have (reported, not worked around)."""
    gaps: list[str] = []
    if scenario.startswith("auth/") and not supports_oauth():
        gaps.append("OAuth 2.1 sign-in (mcp.json has no 'oauth' setting; a 401 just fails the connection)")
    needs_elicitation = scenario.startswith("elicitation") or scenario == "sep-2322-client-request-state"
    if needs_elicitation and client_features(host) is None:
        gaps.append("elicitation (the host's mcp.Client is built without an elicitation_callback)")
    return gaps


def form_defaults(schema: Any) -> dict[str, Any]:
    """What an elicitation form holds when the user accepts it untouched: every field's default."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    return {name: prop["default"] for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop}


def answer_elicitations(host: Host) -> Callable[[], None]:
    """Act as the user for elicitations the host surfaces: accept every form as shown (defaults filled in).

    Turns on the host's elicitation support and answers its ``ElicitationRequested`` events through
    ``answer_elicitation``; returns the unsubscribe function (a no-op when the host has no elicitation).
    """
    features = client_features(host)
    if features is None:
        return lambda: None
    if hasattr(features, "elicitation_enabled"):
        features.elicitation_enabled = True

    def on_event(event: object) -> None:
        if type(event).__name__ != "ElicitationRequested":
            return
        request_id = getattr(event, "request_id", None)
        content = form_defaults(getattr(event, "requested_schema", None))
        log(f"elicitation {request_id}: accepting the form as shown: {json.dumps(content)}")
        features.answer_elicitation(request_id, "accept", content)

    return host.subscribe(on_event)


class HeadlessBrowser(webbrowser.BaseBrowser):
    """The "system browser" the host opens to sign in: it fetches the authorization URL and follows the
    redirect back to the host's loopback catcher (the mock authorization server approves without a page)."""

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        log(f"browser: opening {url[:200]}")
        with httpx.Client(timeout=TIMEOUT, follow_redirects=False) as http:
            location = http.get(url).headers.get("location")
            if location:
                log(f"browser: redirected to {location[:200]}")
                http.get(location)
        return True


class MemoryKeyring(KeyringBackend):
    """Tokens and registrations from the mock authorization servers stay in memory, never in the user's keyring."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


def isolate_user_environment() -> None:
    """Use an in-memory keyring and the headless browser: a run never touches the user's secrets or browser."""
    keyring.set_keyring(MemoryKeyring())
    webbrowser.register("switchboard-conformance", None, HeadlessBrowser("switchboard-conformance"), preferred=True)


def server_config(url: str, scenario: str, context: dict[str, Any]) -> ServerConfig:
    """The ``mcp.json`` entry a user would write for the scenario's server."""
    entry: dict[str, Any] = {"url": url, "type": "http"}
    if scenario.startswith("auth/") and supports_oauth():
        oauth: dict[str, Any] = {}
        for key, field in (("client_id", "clientId"), ("client_secret", "clientSecret")):
            if isinstance(context.get(key), str):
                oauth[field] = context[key]
        entry["oauth"] = oauth or True
    return ServerConfig.model_validate(entry)


def make_host(url: str, scenario: str, context: dict[str, Any]) -> Host:
    return Host({SERVER: server_config(url, scenario, context)}, call_timeout=TIMEOUT, startup_timeout=TIMEOUT)


async def run(url: str, scenario: str) -> int:
    context = scenario_context()
    host = make_host(url, scenario, context)
    for gap in host_feature_gaps(host, scenario):
        log(f"scenario '{scenario}' needs a host feature Switchboard does not have yet: {gap}")
    unsubscribe = answer_elicitations(host)
    try:
        await host.start()
        status = host.states()[SERVER]
        if status.state != "ready":
            log(f"could not connect: {status.state}: {status.error}")
            return 1
        tools = host.tools()
        log(f"connected; {len(tools)} tool(s): {', '.join(t.tool for t in tools) or '-'}")
        failures = 0
        for tool, arguments in planned_calls(scenario, tools, context):
            outcome = await host.call(SERVER, tool, arguments)
            verdict = "error" if outcome.is_error else "ok"
            log(f"call {tool}({json.dumps(arguments, ensure_ascii=False)[:300]}) -> {verdict}: {outcome.text[:300]}")
            failures += outcome.is_error
        return 1 if failures else 0
    finally:
        unsubscribe()
        await host.aclose()


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) < 2 or not scenario:
        log("usage: MCP_CONFORMANCE_SCENARIO=<name> client.py <server-url>")
        return 2
    url = argv[-1]
    log(f"scenario={scenario} url={url} protocol={os.environ.get('MCP_CONFORMANCE_PROTOCOL_VERSION', '-')}")
    isolate_user_environment()
    return asyncio.run(run(url, scenario))


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""MCP Apps metadata (issue 26): a tool's view and visibility, a view's declared CSP (only plain origins),
the policy a view is loaded under, and the request filter's origin match."""

from __future__ import annotations

from desktop_app.runtime.apps.meta import ResourceCsp, content_security_policy, host_allowed, resource_ui, tool_ui


def test_tool_ui_reads_the_resource_uri_the_deprecated_key_and_visibility() -> None:
    assert tool_ui(None).resource_uri is None and tool_ui(None).model_visible
    ui = tool_ui({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}})
    assert ui.resource_uri == "ui://a/b" and not ui.model_visible and ui.app_visible
    assert tool_ui({"ui/resourceUri": "ui://old"}).resource_uri == "ui://old"
    assert tool_ui({"ui": {"resourceUri": "https://evil.example/x"}}).resource_uri is None  # ui:// only
    assert tool_ui({"ui": {"visibility": ["model"]}}).app_visible is False


def test_the_default_policy_is_the_specs_restrictive_one() -> None:
    policy = content_security_policy(ResourceCsp())
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy and "frame-src 'none'" in policy
    assert "script-src 'self' 'unsafe-inline';" in policy and "object-src 'none'" in policy
    assert "base-uri 'self'" in policy


def test_declared_domains_widen_only_their_directives_and_bad_entries_are_refused() -> None:
    ui = resource_ui(
        {
            "ui": {
                "csp": {
                    "connectDomains": ["https://api.example.com", "'unsafe-eval'", "https://x.com; script-src *"],
                    "resourceDomains": ["https://*.cdn.example"],
                },
                "permissions": {"camera": {}},
            }
        }
    )
    assert ui.csp.connect_domains == ("https://api.example.com",)
    assert ui.rejected == ("'unsafe-eval'", "https://x.com; script-src *")
    assert ui.permissions == ("camera",)
    policy = content_security_policy(ui.csp)
    assert "connect-src https://api.example.com;" in policy
    assert "script-src 'self' 'unsafe-inline' https://*.cdn.example;" in policy
    assert "unsafe-eval" not in policy


def test_host_allowed_matches_declared_origins_only() -> None:
    csp = ResourceCsp(connect_domains=("https://api.example.com",), resource_domains=("https://*.cdn.example",))
    assert host_allowed("api.example.com", "https", csp)
    assert host_allowed("api.example.com", "wss", csp)
    assert not host_allowed("api.example.com", "http", csp)
    assert not host_allowed("evil.example.com", "https", csp)
    assert host_allowed("a.cdn.example", "https", csp) and not host_allowed("cdn.example", "https", csp)
    assert not host_allowed("a.cdn.example.evil", "https", csp)

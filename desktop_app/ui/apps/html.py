"""The pages a view runs in (no Qt): the host's outer page and the view's document with its CSP.

The outer page is the host's: it holds the view in an ``<iframe sandbox="allow-scripts">`` (an opaque origin:
no access to the outer page, its storage or cookies; no top navigation, popups or form posts) and carries
JSON-RPC between the view's ``postMessage`` and the web channel. The view's HTML gets the resource's
Content-Security-Policy as the first thing in its ``<head>`` (a later meta can only tighten it).
"""

from __future__ import annotations

import html
import json
import re

from desktop_app.runtime.apps.meta import ResourceCsp, content_security_policy

OUTER_ORIGIN = "https://switchboard-app.invalid/"
"""The outer page's base URL: a reserved name no request can reach (the request filter refuses it too)."""

_HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(r"<html(\s[^>]*)?>", re.IGNORECASE)


def view_document(view_html: str, csp: ResourceCsp) -> str:
    """``view_html`` with its policy as a ``<meta http-equiv>`` at the very start of ``<head>``."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(content_security_policy(csp))}">'
    head = _HEAD.search(view_html)
    if head is not None:
        return view_html[: head.end()] + meta + view_html[head.end() :]
    opened = _HTML.search(view_html)
    if opened is not None:
        return view_html[: opened.end()] + "<head>" + meta + "</head>" + view_html[opened.end() :]
    return "<!DOCTYPE html><html><head>" + meta + "</head><body>" + view_html + "</body></html>"


OUTER_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' qrc:;
 style-src 'unsafe-inline'; frame-src about: http: https:">
<style>html,body{margin:0;padding:0;overflow:hidden;background:transparent}
iframe{border:0;width:100%;height:100vh;display:block;background:transparent}</style>
<script src="qrc:///qtwebchannel/qwebchannel.js"></script>
</head><body><iframe id="view" sandbox="allow-scripts" title="App view"></iframe>
<script>
(function () {
  var frame = document.getElementById("view");
  new QWebChannel(qt.webChannelTransport, function (channel) {
    var host = channel.objects.host;
    window.addEventListener("message", function (event) {
      if (event.source !== frame.contentWindow) return;  // only the view speaks, never another frame
      try { host.fromView(JSON.stringify(event.data)); } catch (e) {}
    });
    host.toView.connect(function (text) { frame.contentWindow.postMessage(JSON.parse(text), "*"); });
    host.loadView.connect(function (text) { frame.srcdoc = text; });
    host.ready();
  });
})();
</script></body></html>"""


def outer_page() -> str:
    return OUTER_PAGE


def script_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


__all__ = ["OUTER_ORIGIN", "outer_page", "view_document"]

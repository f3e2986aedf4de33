"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``): the host side, Qt-free.

``meta`` reads a tool's and a resource's ``_meta.ui``; ``resources`` fetches and caches ``ui://`` views per
server; ``partial_json`` recovers streamed arguments; ``bridge`` speaks the view's JSON-RPC; ``view_calls``
runs a view's ``tools/call`` through the approval policy and the one ``Host.call`` path; ``context`` keeps
what views told the model. The UI (``desktop_app/ui/apps``) only renders and carries messages.
"""

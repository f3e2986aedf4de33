"""The host served as MCP over streamable HTTP: the server (host.py), its service on the running loop
(service.py), connected clients (clients.py), resources/subscribe (subscriptions.py), logging/setLevel
(log_level.py). Imported only by the composition roots (the app, the CLI, the Settings page's builder)."""

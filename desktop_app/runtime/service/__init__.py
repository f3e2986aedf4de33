"""The Runtime facade (:mod:`.facade`) and its collaborators: settings, conversations, routing, server
features, compaction, runs, tasks and the event hub, one module each."""

from desktop_app.runtime.service.facade import Runtime

__all__ = ["Runtime"]

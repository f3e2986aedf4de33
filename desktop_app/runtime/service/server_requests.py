"""How the Runtime serves servers' requests: sampling on the user's provider, and the headless policy.

:func:`wire_client_features` installs the Runtime into the host's :class:`ClientFeatures`:

* a **sampler**: an approved ``sampling/createMessage`` runs as a tool-free chat request on the user's
  provider and model; the collected completion goes back as a ``CreateMessageResult``;
* **elicitation** is offered (the UI answers ``ElicitationRequested`` through ``Runtime.answer_elicitation``);
* the **mode** follows the Runtime's ``ApprovalPolicy``: ``ask`` publishes a request and waits for the
  answer; ``never`` (``--approve never``) declines sampling and elicitation; ``always`` approves sampling
  and cancels elicitation — the runtime cannot invent the user's data.

Imported lazily by the Runtime, only for a real host (it imports the MCP SDK).
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_app.runtime.errors import ProviderError
from desktop_app.runtime.host.client_features import ClientFeatures, HeadlessMode, Sampler
from desktop_app.runtime.host.sampling import sampling_chat_request, sampling_result
from desktop_app.runtime.providers.base import Provider, final_completion
from desktop_app.runtime.sdk_types import mtypes


def make_sampler(provider: Callable[[], Provider], model: Callable[[], str]) -> Sampler:
    """A sampler that runs each request on the current provider and model (both read at request time)."""

    async def sample(server: str, params: mtypes.CreateMessageRequestParams) -> mtypes.CreateMessageResult:
        name = model()
        completion = await final_completion(provider().stream(sampling_chat_request(params, name)))
        if completion is None:
            raise ProviderError(
                f"The model stream ended without a completion, so {server}'s sampling request got no answer; "
                "the server may ask again."
            )
        return sampling_result(completion, name)

    return sample


def wire_client_features(
    features: ClientFeatures,
    *,
    provider: Callable[[], Provider],
    model: Callable[[], str],
    mode: Callable[[], HeadlessMode],
) -> None:
    """Offer sampling and elicitation to servers that connect from now on, answered by the Runtime."""
    features.sampler = make_sampler(provider, model)
    features.elicitation_enabled = True
    features.mode = mode


__all__ = ["make_sampler", "wire_client_features"]

"""A bundle's signature state, as ``mcpb sign`` writes it and ``mcpb verify`` reads it.

``mcpb sign`` appends ``MCPB_SIG_V1``, a little-endian length, a detached PKCS#7 (CMS) SignedData over the
archive bytes with SHA-256 and authenticated attributes, and ``MCPB_SIG_END``. The states:

* ``unsigned`` — no signature block;
* ``invalid`` — a block that does not verify (the archive was changed after signing, or the block is
  damaged): signed, but not to be trusted;
* ``self-signed`` — valid, by a certificate that issued itself;
* ``signed`` — valid, by a certificate issued by another authority.

``mcpb verify`` (``verifyMcpbFile``) answers "Signature is valid" or "Signature is valid (self-signed)" only
when the signature is intact **and** the certificate chains to one in the computer's trust store; everything
else — no block, a block that does not verify, a certificate the computer does not trust (a self-signed one
not added to the store, an unknown authority) — it reports as "Extension is not signed".
:attr:`Signature.trusted` is that trust check (the system's CA certificates, as Python's ``ssl`` loads them,
walked up through the bundle's intermediate certificates), and :attr:`Signature.mcpb_verdict` the line
``mcpb verify`` prints, so the install screen can say both what is true of the bundle and what the
official tool would say.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from desktop_app.runtime.extensions.archive import Bundle

if TYPE_CHECKING:
    from cryptography import x509

State = Literal["unsigned", "invalid", "self-signed", "signed"]


@dataclass(frozen=True)
class Signature:
    state: State
    publisher: str = ""
    issuer: str = ""
    reason: str = ""
    trusted: bool = False
    """The certificate chains to one in this computer's trust store (what ``mcpb verify`` also requires)."""

    @property
    def summary(self) -> str:
        """One line: ``unsigned``, ``signed but INVALID (…)`` or ``signed and valid, …`` with the trust."""
        if self.state == "unsigned":
            return "unsigned"
        if self.state == "invalid":
            return f"signed but INVALID ({self.reason}); do not trust it"
        if self.state == "self-signed":
            text = f"signed and valid, self-signed by {self.publisher}"
            return text if self.trusted else text + " (no authority vouches for the publisher)"
        text = f"signed and valid, by {self.publisher} (issued by {self.issuer})"
        return text if self.trusted else text + f"; {self.issuer} is not an authority this computer trusts"

    @property
    def mcpb_verdict(self) -> str:
        """What ``mcpb verify`` prints for this bundle on this computer."""
        if self.state in ("signed", "self-signed") and self.trusted:
            return "Signature is valid" + (" (self-signed)" if self.state == "self-signed" else "")
        return "Extension is not signed"


def _verify_signer(signed_attrs: bytes, signature: bytes, certificate: bytes, algorithm: str) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

    key = x509.load_der_x509_certificate(certificate).public_key()
    digest = {"sha256": hashes.SHA256(), "sha384": hashes.SHA384(), "sha512": hashes.SHA512()}[algorithm]
    if isinstance(key, rsa.RSAPublicKey):
        key.verify(signature, signed_attrs, padding.PKCS1v15(), digest)
    elif isinstance(key, ec.EllipticCurvePublicKey):
        key.verify(signature, signed_attrs, ec.ECDSA(digest))
    else:
        raise ValueError("unsupported key type")


def _system_roots() -> list[bytes]:
    import ssl

    try:
        return [bytes(c) for c in ssl.create_default_context().get_ca_certs(binary_form=True)]
    except (ssl.SSLError, OSError):
        return []


def _load_all(ders: list[bytes]) -> list[x509.Certificate]:
    """The certificates that parse (a store may hold old ones the library warns about or refuses)."""
    import warnings

    from cryptography import x509
    from cryptography.utils import CryptographyDeprecationWarning

    loaded = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        for der in ders:
            try:
                loaded.append(x509.load_der_x509_certificate(der))
            except ValueError:
                continue
    return loaded


def chain_trusted(leaf: bytes, intermediates: list[bytes], roots: list[bytes] | None = None) -> bool:
    """Whether ``leaf`` (DER) chains to one of ``roots`` (the system's CA certificates when ``None``),
    through ``intermediates``; each link's signature and validity period are checked."""
    from datetime import UTC, datetime

    anchors = _load_all(_system_roots() if roots is None else roots)
    middle = _load_all(intermediates)
    leaves = _load_all([leaf])
    if not leaves:
        return False
    current = leaves[0]
    now = datetime.now(UTC)
    for _ in range(8):
        if not current.not_valid_before_utc <= now <= current.not_valid_after_utc:
            return False
        if current in anchors:
            return True
        for issuer in [*anchors, *middle]:
            if issuer.subject != current.issuer or issuer == current:
                continue
            try:
                current.verify_directly_issued_by(issuer)
            except Exception:
                continue
            if issuer in anchors:
                return issuer.not_valid_before_utc <= now <= issuer.not_valid_after_utc
            current = issuer
            break
        else:
            return False
    return False


def verify(bundle: Bundle, *, roots: list[bytes] | None = None) -> Signature:
    """The bundle's signature state (never raises)."""
    if bundle.signature is None:
        return Signature("unsigned")
    try:
        from asn1crypto import cms

        info = cms.ContentInfo.load(bundle.signature)
        if info["content_type"].native != "signed_data":
            return Signature("invalid", reason="the signature block is not PKCS#7 signed data")
        signed = info["content"]
        certificates = [c.chosen for c in signed["certificates"] or []]
        signers = list(signed["signer_infos"])
        if not certificates or not signers:
            return Signature("invalid", reason="the signature block holds no certificate or signer")
        signer = signers[0]
        algorithm = signer["digest_algorithm"]["algorithm"].native
        if algorithm not in ("sha256", "sha384", "sha512"):
            return Signature("invalid", reason=f"unsupported digest {algorithm}")
        attributes = signer["signed_attrs"]
        digest = next((a["values"][0].native for a in attributes if a["type"].native == "message_digest"), None)
        if digest != hashlib.new(algorithm, bundle.archive).digest():
            return Signature("invalid", reason="the bundle was changed after it was signed")
        certificate = certificates[0]
        attrs_der = b"\x31" + attributes.dump()[1:]  # signed over as a SET OF, not the [0] IMPLICIT tag
        _verify_signer(attrs_der, signer["signature"].native, certificate.dump(), algorithm)
    except Exception as exc:
        return Signature("invalid", reason=f"the signature does not verify ({type(exc).__name__})")
    subject = certificate.subject.native.get("common_name", "unknown")
    issuer = certificate.issuer.native.get("common_name", "unknown")
    state: State = "self-signed" if certificate.self_signed != "no" else "signed"
    try:
        trusted = chain_trusted(certificate.dump(), [c.dump() for c in certificates[1:]], roots)
    except Exception:  # a certificate the library cannot read: not trusted
        trusted = False
    return Signature(state, publisher=str(subject), issuer=str(issuer), trusted=trusted)


__all__ = ["Signature", "State", "chain_trusted", "verify"]

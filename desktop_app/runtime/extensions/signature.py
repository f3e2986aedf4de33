"""A bundle's signature state, as ``mcpb sign`` writes it and ``mcpb verify`` reads it.

``mcpb sign`` appends ``MCPB_SIG_V1``, a little-endian length, a detached PKCS#7 (CMS) SignedData over the
archive bytes with SHA-256 and authenticated attributes, and ``MCPB_SIG_END``. The states:

* ``unsigned`` — no signature block;
* ``invalid`` — a block that does not verify (the archive was changed after signing, or the block is
  damaged): signed, but not to be trusted;
* ``self-signed`` — valid, by a certificate that issued itself (``mcpb verify`` calls this self-signed);
* ``signed`` — valid, by a certificate issued by another authority.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from desktop_app.runtime.extensions.archive import Bundle

State = Literal["unsigned", "invalid", "self-signed", "signed"]


@dataclass(frozen=True)
class Signature:
    state: State
    publisher: str = ""
    issuer: str = ""
    reason: str = ""

    @property
    def summary(self) -> str:
        if self.state == "unsigned":
            return "unsigned"
        if self.state == "invalid":
            return f"signed but INVALID ({self.reason}); do not trust it"
        if self.state == "self-signed":
            return f"signed and valid, self-signed by {self.publisher}"
        return f"signed and valid, by {self.publisher} (issued by {self.issuer})"


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


def verify(bundle: Bundle) -> Signature:
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
    return Signature(state, publisher=str(subject), issuer=str(issuer))


__all__ = ["Signature", "State", "verify"]

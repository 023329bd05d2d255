"""Verifies a delivery of the Rewards API's webhooks (docs/webhooks.md, Request format and signature).

Python 3.8 or later, standard library only. Run as a check:
    WEBHOOK_SECRET=whsec_... python3 verify_webhook.py "<X-Webhook-Timestamp>" "<X-Webhook-Signature>" < raw-body
"""
import hashlib
import hmac
import os
import re
import sys
import time

TOLERANCE_SECONDS = 300


def verify_webhook(secret, timestamp, signature_header, raw_body, now=None):
    """True when one `v1=` value of the X-Webhook-Signature header is the HMAC-SHA256 of
    `<timestamp>.<raw body>` keyed with the endpoint's secret (`whsec_...`, all of it), and the
    timestamp is within five minutes of now. `raw_body` is the body's bytes as received
    (Flask: request.get_data(); Django: request.body), never JSON parsed and serialised again."""
    now = time.time() if now is None else now
    if not re.fullmatch(r"[0-9]{1,12}", timestamp) or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + raw_body, hashlib.sha256).hexdigest()
    # During a secret rotation the header carries two signatures, `v1=<new> v1=<old>`: either may match.
    return any(
        hmac.compare_digest(part[3:].encode("utf-8"), expected.encode("ascii"))
        for part in signature_header.split(" ")
        if part.startswith("v1=")
    )


if __name__ == "__main__":
    timestamp, signature_header = (sys.argv[1:] + ["", ""])[:2]
    ok = verify_webhook(os.environ.get("WEBHOOK_SECRET", ""), timestamp, signature_header, sys.stdin.buffer.read())
    print("verified" if ok else "rejected")
    sys.exit(0 if ok else 1)

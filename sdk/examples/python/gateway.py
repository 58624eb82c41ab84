"""Signed requests to the crypto payment gateway and webhook verification, Python 3 stdlib only.

    python3 gateway.py call POST /v1/cashier/init '{"external_order_id":"order-1"}'
        (GATEWAY_URL, GATEWAY_KEY_ID, GATEWAY_SECRET from the environment) prints "<status> <body>"
    python3 gateway.py verify <X-Webhook-Timestamp> <X-Webhook-Signature> < raw_body
        (GATEWAY_SECRET) prints "ok" or "refused <reason>"
    python3 gateway.py vectors request-signing-test-vectors.json webhook-test-vectors.json

Keep the API secret on your backend, never in a browser.
"""
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

TOLERANCE_SECONDS = 300


def signed_headers(key_id, secret, method, target, body, timestamp=None, nonce=None):
    """The four signing headers: HMAC-SHA256 over METHOD, path?query, timestamp, nonce, SHA-256(body)."""
    timestamp = timestamp or str(int(time.time()))
    nonce = nonce or str(uuid.uuid4())  # a fresh nonce per request, also per retry
    canonical = "\n".join([method.upper(), target, timestamp, nonce, hashlib.sha256(body).hexdigest()])
    signature = hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    return {"X-Api-Key": key_id, "X-Timestamp": timestamp, "X-Nonce": nonce, "X-Signature": signature}


def call(base_url, key_id, secret, method, target, body_text=""):
    """Sends a signed request with a JSON body text; returns (HTTP status, parsed JSON body).

    The signature covers the exact bytes sent: serialise once (json.dumps) and pass that text.
    """
    body = body_text.encode()
    headers = signed_headers(key_id, secret, method, target, body)
    if body:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base_url + target, data=body or None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:  # 4xx and 5xx carry the error envelope
        return error.code, json.loads(error.read())


def verify_webhook(raw_body, timestamp, signature, secret, now=None):
    """Checks a webhook against its raw bytes before parsing; returns None when valid, else a reason."""
    if not timestamp.isdigit() or not signature:
        return "malformed_header"
    if abs((now if now is not None else time.time()) - int(timestamp)) > TOLERANCE_SECONDS:
        return "timestamp_out_of_tolerance"
    expected = hmac.new(secret.encode(), timestamp.encode() + b"\n" + raw_body, hashlib.sha256).hexdigest()
    return None if hmac.compare_digest(expected, signature.lower()) else "signature_mismatch"


def check_vectors(request_file, webhook_file):
    """Every published vector: requests sign to the given signature, webhooks verify or are refused."""
    with open(request_file, encoding="utf-8") as f:
        requests = json.load(f)
    for v in requests["vectors"]:
        headers = signed_headers(v["key_id"], v["secret"], v["method"], v["target"], v["body"].encode(),
                                 v["timestamp"], v["nonce"])
        assert headers["X-Signature"] == v["signature"], v["name"]
    with open(webhook_file, encoding="utf-8") as f:
        webhooks = json.load(f)
    for v in webhooks["vectors"]:
        reason = verify_webhook(v["body"].encode(), v["timestamp"], v["signature"], v["secret"], int(v["timestamp"]))
        assert reason is None, (v["name"], reason)
    for v in webhooks["invalid"]:
        reason = verify_webhook(v.get("body", "").encode(), v["timestamp"], v["signature"], v["secret"], v["now"])
        assert reason == v["reason"], (v["name"], reason)
    return len(requests["vectors"]) + len(webhooks["vectors"]) + len(webhooks["invalid"])


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "call":
        env = os.environ
        text = args[2] if len(args) > 2 else ""
        status, body = call(env["GATEWAY_URL"], env["GATEWAY_KEY_ID"], env["GATEWAY_SECRET"], args[0], args[1], text)
        print(status, json.dumps(body))
    elif mode == "verify":
        reason = verify_webhook(sys.stdin.buffer.read(), args[0], args[1], os.environ["GATEWAY_SECRET"])
        print("ok" if reason is None else "refused " + reason)
    elif mode == "vectors":
        print("ok", check_vectors(args[0], args[1]))

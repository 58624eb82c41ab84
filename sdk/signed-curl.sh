#!/usr/bin/env bash
# A signed request to the gateway with curl (needs openssl).
#   sdk/signed-curl.sh KEY_ID SECRET METHOD URL [BODY]
# e.g. sdk/signed-curl.sh key_… sk_… POST http://localhost:8080/v1/cashier/init '{"external_order_id":"order-1"}'
# Canonical string: METHOD \n PATH?QUERY \n TIMESTAMP \n NONCE \n hex SHA-256 of the body; the signature
# is its hex HMAC-SHA256 with the secret. Every call gets a fresh timestamp and nonce.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 KEY_ID SECRET METHOD URL [BODY]" >&2
  exit 2
fi
key=$1 secret=$2 method=$(printf '%s' "$3" | tr '[:lower:]' '[:upper:]') url=$4 body=${5-}
target=/${url#*://*/}
ts=$(date +%s)
nonce=$(openssl rand -hex 16)
hash=$(printf '%s' "$body" | openssl dgst -sha256 -r | cut -d' ' -f1)
sig=$(printf '%s\n%s\n%s\n%s\n%s' "$method" "$target" "$ts" "$nonce" "$hash" | openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
args=(-sS -X "$method" "$url" -H "X-Api-Key: $key" -H "X-Timestamp: $ts" -H "X-Nonce: $nonce" -H "X-Signature: $sig")
if [ "$method" != GET ]; then args+=(-H 'content-type: application/json' --data-binary "$body"); fi
curl "${args[@]}"
echo

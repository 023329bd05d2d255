#!/bin/sh
# Checks a delivery of the Rewards API's webhooks by hand, with OpenSSL (docs/webhooks.md, Request format
# and signature): for debugging a receiver, not for serving one (the comparison is not constant-time, and
# the secret is on openssl's command line, where other users of the machine can see it). Run:
#   WEBHOOK_SECRET=whsec_... sh verify-webhook.sh "<X-Webhook-Timestamp>" "<X-Webhook-Signature>" < raw-body
set -f # the header is split on spaces below, never expanded as a file pattern
timestamp=$1
signature_header=$2
case $timestamp in '' | *[!0-9]* | ?????????????*) echo rejected; exit 1 ;; esac
age=$(($(date +%s) - timestamp))
if [ "${age#-}" -gt 300 ]; then echo rejected; exit 1; fi
# HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the whole secret, as lowercase hex.
expected=$({ printf '%s.' "$timestamp"; cat; } | openssl dgst -sha256 -hmac "$WEBHOOK_SECRET" | sed 's/^.*= //')
# During a secret rotation the header carries two signatures, "v1=<new> v1=<old>": either may match.
for part in $signature_header; do
  if [ "$part" = "v1=$expected" ]; then echo verified; exit 0; fi
done
echo rejected
exit 1

// Verifies a delivery of the Rewards API's webhooks (docs/webhooks.md, Request format and signature).
// Node.js 18 or later, no dependencies. Run as a check:
//   WEBHOOK_SECRET=whsec_... node verify-webhook.mjs "<X-Webhook-Timestamp>" "<X-Webhook-Signature>" < raw-body
import { createHmac, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const TOLERANCE_SECONDS = 300;

/**
 * True when one `v1=` value of the X-Webhook-Signature header is the HMAC-SHA256 of
 * `<timestamp>.<raw body>` keyed with the endpoint's secret (`whsec_...`, all of it), and the
 * timestamp is within five minutes of `now`. `rawBody` is the body's bytes as received (a Buffer):
 * JSON parsed and serialised again will not match.
 */
export function verifyWebhook(secret, timestamp, signatureHeader, rawBody, now = Date.now() / 1000) {
  if (!/^[0-9]{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // During a secret rotation the header carries two signatures, `v1=<new> v1=<old>`: either may match.
  return signatureHeader.split(' ').some((part) => {
    if (!part.startsWith('v1=')) return false;
    const given = Buffer.from(part.slice(3), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

// In an Express app: app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
//   if (!verifyWebhook(secret, req.get('X-Webhook-Timestamp') ?? '', req.get('X-Webhook-Signature') ?? '', req.body)) return res.sendStatus(400);
//   const event = JSON.parse(req.body); ... dedupe on event.id (X-Webhook-Id), then answer 2xx quickly.
// });

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const [timestamp = '', signatureHeader = ''] = process.argv.slice(2);
  const ok = verifyWebhook(process.env.WEBHOOK_SECRET ?? '', timestamp, signatureHeader, Buffer.concat(chunks));
  process.stdout.write(ok ? 'verified\n' : 'rejected\n');
  process.exit(ok ? 0 : 1);
}

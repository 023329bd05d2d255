import type { OpenAPIObject } from '@nestjs/swagger';
import { EVENT_TYPES } from '@app/core';
import { REWARD_FX_SCHEMA } from '@app/rewards';

/**
 * The webhook payloads are part of the contract: one schema per event type, and the request the
 * service makes to a registered endpoint, described as an OpenAPI 3.0 callback of
 * `createWebhookEndpoint` (the document is 3.0, which has no top-level `webhooks`). Tests validate
 * every payload they receive against these schemas (test/support/webhook-receiver.ts).
 */

type Json = Record<string, any>;

const REWARD_STATUS = ['CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED'];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const cents = { type: 'integer', minimum: 0 };

/** The reward's fields every reward event carries. */
const REWARD_DATA_PROPERTIES: Json = {
  id: { type: 'string', pattern: '^rw_', maxLength: 64 },
  status: { type: 'string', enum: REWARD_STATUS },
  valueCents: { ...cents, minimum: 1, description: 'Face value of the reward, in cents of `currency`.' },
  remainingValueCents: { ...cents, description: 'Value not yet turned into cards, in cents of `currency`.' },
  currency: {
    type: 'string',
    pattern: '^[A-Z]{3}$',
    minLength: 3,
    maxLength: 3,
    description: 'The reward’s currency: the wallet its value is held in and returns to.',
  },
  fx: {
    ...REWARD_FX_SCHEMA,
    additionalProperties: false,
    description: 'Set when the send converted the value from another wallet (`fundingCurrency`), as on the reward; otherwise null.',
  },
  externalId: { type: 'string', nullable: true, maxLength: 100 },
};

const DATA_SCHEMAS: Record<string, Json> = {
  WebhookRewardData: {
    type: 'object',
    description: 'The reward as it is after the change.',
    required: ['id', 'status', 'valueCents', 'remainingValueCents', 'currency', 'fx', 'externalId'],
    additionalProperties: false,
    properties: REWARD_DATA_PROPERTIES,
  },
  WebhookRewardDeliveryFailedData: {
    type: 'object',
    description:
      'A message of the reward could not be delivered. `channel` email: the recipient’s mail server refused it for good (a 5xx reply), ' +
      'or it still refused or did not answer after the last retry; the reward shows `emailStatus: FAILED` and `PATCH /v1/rewards/{id}` ' +
      'corrects the address. `channel` sms: the SMS provider refused the text for good (e.g. an invalid or unsubscribed number), or it ' +
      'still failed after the last retry; the reward shows `smsStatus: FAILED`.',
    required: ['id', 'status', 'valueCents', 'remainingValueCents', 'currency', 'fx', 'externalId', 'channel', 'reason'],
    additionalProperties: false,
    properties: {
      ...REWARD_DATA_PROPERTIES,
      channel: { type: 'string', enum: ['email', 'sms'], description: 'What failed: the e-mail, or the text message.' },
      reason: {
        type: 'string',
        maxLength: 200,
        description: 'The server’s or the SMS provider’s reply (its code and text), or what went wrong when there was none; up to 200 characters.',
      },
    },
  },
  WebhookRewardRemindedData: {
    type: 'object',
    description:
      'A reminder e-mail went to the recipient of a reward with value left (`PUT /v1/account/reminder-settings`), with the reward’s ' +
      'one link: `after_days` some days after delivery, `before_expiry` some days before `expiresAt`. Each at most once per reward.',
    required: ['id', 'status', 'valueCents', 'remainingValueCents', 'currency', 'fx', 'externalId', 'reminder'],
    additionalProperties: false,
    properties: {
      ...REWARD_DATA_PROPERTIES,
      reminder: { type: 'string', enum: ['after_days', 'before_expiry'], description: 'Which reminder it was.' },
    },
  },
  WebhookCardData: {
    type: 'object',
    required: ['rewardId', 'card'],
    additionalProperties: false,
    properties: {
      rewardId: { type: 'string', pattern: '^rw_', maxLength: 64 },
      card: {
        type: 'object',
        required: ['id', 'utid', 'amountCents', 'currency', 'status'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^card_', maxLength: 64 },
          utid: { type: 'string', maxLength: 100 },
          amountCents: { ...cents, minimum: 1 },
          currency: { type: 'string', minLength: 3, maxLength: 3 },
          status: { type: 'string', enum: ['ISSUED', 'FAILED'] },
        },
      },
    },
  },
  WebhookWalletCreditedData: {
    type: 'object',
    required: ['topupId', 'amountCents', 'currency'],
    additionalProperties: false,
    properties: {
      topupId: { type: 'string', pattern: '^tu_', maxLength: 64 },
      amountCents: { ...cents, minimum: 1, description: 'Cents added, in `currency`.' },
      currency: {
        type: 'string',
        pattern: '^[A-Z]{3}$',
        minLength: 3,
        maxLength: 3,
        description: 'The currency of the wallet credited: the top-up’s (an account has one wallet per currency).',
      },
    },
  },
  WebhookWalletLowBalanceData: {
    type: 'object',
    description: 'A wallet’s available balance fell below its alert threshold (`PUT /v1/account/alert-settings`): at most once per 24 hours per wallet.',
    required: ['currency', 'availableCents', 'thresholdCents'],
    additionalProperties: false,
    properties: {
      currency: { type: 'string', pattern: '^[A-Z]{3}$', minLength: 3, maxLength: 3, description: 'The wallet’s currency.' },
      availableCents: { ...cents, description: 'The available balance right after the movement that took it below the threshold, in `currency`.' },
      thresholdCents: { ...cents, minimum: 1, maximum: 100_000_000, description: 'The threshold it fell below, in `currency`.' },
    },
  },
  WebhookCatalogUpdatedData: {
    type: 'object',
    description:
      'A catalog sync added, removed or changed items this account may send (its catalog rules let it see them): only those ' +
      'items are listed, and the event goes only to accounts that can see at least one of them.',
    required: ['added', 'removed', 'changed'],
    additionalProperties: false,
    properties: {
      added: { type: 'array', items: { type: 'string', maxLength: 100 }, description: 'The `utid`s of items new in the catalog.' },
      removed: { type: 'array', items: { type: 'string', maxLength: 100 }, description: 'The `utid`s of items no longer offered.' },
      changed: {
        type: 'array',
        items: { type: 'string', maxLength: 100 },
        description: 'The `utid`s of items whose name, value range, currency or brand changed.',
      },
    },
  },
  WebhookReportCompletedData: {
    type: 'object',
    description: 'A report requested with `POST /v1/reports` is built: its CSV can be downloaded for 7 days.',
    required: ['reportId', 'type', 'rowCount'],
    additionalProperties: false,
    properties: {
      reportId: { type: 'string', pattern: '^rpt_', maxLength: 64 },
      type: { type: 'string', enum: ['rewards', 'cards', 'wallet_transactions'] },
      rowCount: { ...cents, description: 'Rows of the CSV, its header not counted.' },
    },
  },
  WebhookPingData: {
    type: 'object',
    required: ['webhookEndpointId'],
    additionalProperties: false,
    properties: { webhookEndpointId: { type: 'string', pattern: '^we_', maxLength: 64 } },
  },
};

function dataSchemaOf(type: string): string {
  if (type === 'reward.delivery_failed') return 'WebhookRewardDeliveryFailedData';
  if (type === 'reward.reminded') return 'WebhookRewardRemindedData';
  if (type.startsWith('reward.')) return 'WebhookRewardData';
  if (type.startsWith('card.')) return 'WebhookCardData';
  if (type === 'wallet.credited') return 'WebhookWalletCreditedData';
  if (type === 'wallet.low_balance') return 'WebhookWalletLowBalanceData';
  if (type === 'catalog.updated') return 'WebhookCatalogUpdatedData';
  if (type === 'report.completed') return 'WebhookReportCompletedData';
  if (type === 'ping') return 'WebhookPingData';
  throw new Error(`no webhook payload schema for event type ${type}`);
}

/** `reward.partially_redeemed` -> `RewardPartiallyRedeemedEvent`. */
function schemaNameOf(type: string): string {
  return `${type.split(/[._]/).map((part) => part[0].toUpperCase() + part.slice(1)).join('')}Event`;
}

const SIGNATURE_HEADERS = [
  {
    name: 'X-Webhook-Id',
    in: 'header',
    required: true,
    description: 'The event id (`evt_`): the same on every delivery of one event. Use it to ignore repeats.',
    schema: { type: 'string', pattern: '^evt_', maxLength: 64 },
  },
  {
    name: 'X-Webhook-Timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds when this attempt was signed. Refuse ones far from your clock (replays).',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
  },
  {
    name: 'X-Webhook-Signature',
    in: 'header',
    required: true,
    description:
      '`v1=` and the hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the whole endpoint secret (`whsec_...`, as UTF-8). ' +
      'During a secret rotation grace period two signatures are sent, space-separated: accept the request if either matches.',
    schema: { type: 'string', pattern: '^v1=[0-9a-f]{64}( v1=[0-9a-f]{64})*$', maxLength: 400 },
  },
];

export function addWebhookEvents(document: OpenAPIObject): OpenAPIObject {
  const doc = document as Json;
  const schemas: Json = (doc.components.schemas ??= {});
  Object.assign(schemas, DATA_SCHEMAS);
  const types = [...EVENT_TYPES, 'ping'];
  const mapping: Record<string, string> = {};
  for (const type of types) {
    const name = schemaNameOf(type);
    mapping[type] = `#/components/schemas/${name}`;
    schemas[name] = {
      type: 'object',
      description: `The \`${type}\` event.`,
      required: ['id', 'type', 'createdAt', 'data'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: '^evt_', maxLength: 64, description: 'Event id; the same in every delivery of this event.' },
        type: { type: 'string', enum: [type] },
        createdAt: { type: 'string', format: 'date-time', description: 'When the change happened.' },
        data: ref(dataSchemaOf(type)),
      },
    };
  }
  schemas.WebhookEvent = {
    description: 'What the service POSTs to a webhook endpoint: one event, signed.',
    oneOf: types.map((type) => ref(schemaNameOf(type))),
    discriminator: { propertyName: 'type', mapping },
  };

  // A delivery's payload, as listed by the deliveries API, is exactly one of these events. A plain $ref
  // (not allOf, which generators read as inheritance and drop the discriminator `type` from) keeps
  // `delivery.payload.type` typed in generated clients.
  const delivery = schemas.WebhookDeliveryDto?.properties;
  if (delivery?.payload) delivery.payload = ref('WebhookEvent');

  const create = doc.paths?.['/v1/webhook-endpoints']?.post;
  if (create) {
    create.callbacks = {
      webhookEvent: {
        '{$request.body#/url}': {
          post: {
            operationId: 'receiveWebhookEvent',
            summary: 'An event delivered to your endpoint',
            description:
              'Sent for each subscribed event, at least once, with the signature headers. Answer any 2xx quickly to ' +
              'acknowledge; anything else (or no answer within the timeout) is retried with backoff. 410 pauses the endpoint.',
            security: [],
            parameters: SIGNATURE_HEADERS,
            requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
            responses: {
              '200': { description: 'Received. Any 2xx status acknowledges the event.' },
              '410': { description: 'The receiver is gone: the endpoint is paused until reactivated.' },
              default: { description: 'Not acknowledged: the delivery is retried with backoff.' },
            },
          },
        },
      },
    };
  }
  return document;
}

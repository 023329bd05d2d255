import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditActions, rewardStatuses, roles, webhookEventTypes } from 'virtual:contract-enums';
import { documentPath, readContractEnums } from './contract-enums.mts';

const onDisk = (document: 'openapi.yaml' | 'openapi.dashboard.yaml') => readFileSync(documentPath(document), 'utf8');

describe('the lists the dashboard offers come from the contract', () => {
  it('the app gets, through the build, the lists the documents hold', () => {
    expect({ webhookEventTypes, rewardStatuses, auditActions, roles }).toEqual(readContractEnums());
    expect(webhookEventTypes).toContain('wallet.credited');
    expect(auditActions).toContain('webhook_endpoint.secret_rotated');
    expect(roles).toEqual(['viewer', 'developer', 'admin', 'owner']);
  });

  it('an event kind added to openapi.yaml is offered with no change to the app', () => {
    const read = (document: 'openapi.yaml' | 'openapi.dashboard.yaml') =>
      document === 'openapi.yaml' ? onDisk(document).replace(/(\n(\s+)- wallet\.credited\n)/g, '$1$2- reward.reminded\n') : onDisk(document);
    // Inserted after every wallet.credited (a request example lists it first), wherever that is in the list: compared without order.
    expect([...readContractEnums(read).webhookEventTypes].sort()).toEqual([...webhookEventTypes, 'reward.reminded'].sort());
  });

  it('a list the app reads that is gone from a document (a renamed schema) fails the build, naming where it looked', () => {
    const read = (document: 'openapi.yaml' | 'openapi.dashboard.yaml') =>
      document === 'openapi.yaml' ? onDisk(document).replaceAll('CreateWebhookEndpointDto:', 'NewWebhookEndpointDto:') : onDisk(document);
    expect(() => readContractEnums(read)).toThrow(
      'openapi.yaml has no list of strings at components → schemas → CreateWebhookEndpointDto → properties → events → items → enum',
    );
  });
});

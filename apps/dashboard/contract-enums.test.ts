import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
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
    // The kind is added where the contract lists what an endpoint subscribes to, and nowhere else.
    const withNewKind = () => {
      const contract = parse(onDisk('openapi.yaml'));
      contract.components.schemas.CreateWebhookEndpointDto.properties.events.items.enum.push('reward.reminded');
      return stringify(contract);
    };
    const read = (document: 'openapi.yaml' | 'openapi.dashboard.yaml') => (document === 'openapi.yaml' ? withNewKind() : onDisk(document));
    expect(readContractEnums(read).webhookEventTypes).toEqual([...webhookEventTypes, 'reward.reminded']);
  });

  it('a list the app reads that is gone from a document (a renamed schema) fails the build, naming where it looked', () => {
    const read = (document: 'openapi.yaml' | 'openapi.dashboard.yaml') =>
      document === 'openapi.yaml' ? onDisk(document).replaceAll('CreateWebhookEndpointDto:', 'NewWebhookEndpointDto:') : onDisk(document);
    expect(() => readContractEnums(read)).toThrow(
      'openapi.yaml has no list of strings at components → schemas → CreateWebhookEndpointDto → properties → events → items → enum',
    );
  });
});

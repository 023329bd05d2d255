import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { parse } from 'yaml';

/**
 * The lists the web app offers people (webhook event kinds, reward statuses, audit actions, roles),
 * read from the committed contract when the app is built, so no copy of them lives in the app
 * (docs/dashboard.md, The web app). Only the lists reach the bundle, not the documents.
 */

/** One step into a document: a property name, or the element of an array that has this `name`. */
type Step = string | { name: string };

interface EnumSource {
  document: 'openapi.yaml' | 'openapi.dashboard.yaml';
  path: Step[];
}

export const CONTRACT_ENUMS = {
  /** The event kinds an endpoint may subscribe to. */
  webhookEventTypes: { document: 'openapi.yaml', path: ['components', 'schemas', 'CreateWebhookEndpointDto', 'properties', 'events', 'items', 'enum'] },
  /** The statuses the rewards list filters by. */
  rewardStatuses: { document: 'openapi.yaml', path: ['paths', '/v1/rewards', 'get', 'parameters', { name: 'status' }, 'schema', 'enum'] },
  /** The actions the audit log filters by. */
  auditActions: { document: 'openapi.dashboard.yaml', path: ['paths', '/dashboard/api/audit-log', 'get', 'parameters', { name: 'action' }, 'schema', 'enum'] },
  /** A member's roles, weakest first. */
  roles: { document: 'openapi.dashboard.yaml', path: ['components', 'schemas', 'SessionMembershipDto', 'properties', 'role', 'enum'] },
} satisfies Record<string, EnumSource>;

export type ContractEnumName = keyof typeof CONTRACT_ENUMS;

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** Where a document is read from: the repository's root. */
export function documentPath(document: EnumSource['document']): string {
  return `${REPOSITORY}${document}`;
}

/** The enum at `source.path` in `doc`; a path that leads nowhere (a renamed schema) fails the build, naming it. */
export function enumAt(doc: unknown, source: EnumSource): string[] {
  let here: unknown = doc;
  for (const step of source.path) {
    if (typeof step === 'string') here = here && typeof here === 'object' ? (here as Record<string, unknown>)[step] : undefined;
    else here = Array.isArray(here) ? here.find((item: { name?: unknown }) => item?.name === step.name) : undefined;
  }
  if (!Array.isArray(here) || here.length === 0 || !here.every((value) => typeof value === 'string')) {
    const where = source.path.map((step) => (typeof step === 'string' ? step : `[name=${step.name}]`)).join(' → ');
    throw new Error(`${source.document} has no list of strings at ${where}: the dashboard reads it (apps/dashboard/contract-enums.mts).`);
  }
  return here;
}

/** Every list, read from the documents as they are on disk now. */
export function readContractEnums(read: (document: EnumSource['document']) => string = (d) => readFileSync(documentPath(d), 'utf8')): Record<ContractEnumName, string[]> {
  const parsed = new Map<string, unknown>();
  const doc = (name: EnumSource['document']) => {
    if (!parsed.has(name)) parsed.set(name, parse(read(name)));
    return parsed.get(name);
  };
  const sources = Object.entries(CONTRACT_ENUMS) as [ContractEnumName, EnumSource][];
  return Object.fromEntries(sources.map(([name, source]) => [name, enumAt(doc(source.document), source)])) as Record<ContractEnumName, string[]>;
}

const ID = 'virtual:contract-enums';
const RESOLVED = `\0${ID}`;

/** `import { webhookEventTypes } from 'virtual:contract-enums'` (typed in src/contract-enums.d.ts). */
export function contractEnums(): Plugin {
  return {
    name: 'contract-enums',
    resolveId: { filter: { id: new RegExp(`^${ID}$`) }, handler: () => RESOLVED },
    load: {
      filter: { id: new RegExp(`^\0${ID}$`) },
      handler() {
        // A change to either document rebuilds the module in `vite dev` and in watch mode.
        for (const document of new Set(Object.values(CONTRACT_ENUMS).map((source) => source.document))) this.addWatchFile(documentPath(document));
        return Object.entries(readContractEnums())
          .map(([name, values]) => `export const ${name} = Object.freeze(${JSON.stringify(values)});`)
          .join('\n');
      },
    },
  };
}

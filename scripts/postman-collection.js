#!/usr/bin/env node
// Generates clients/postman/rewards-api.postman_collection.json (Postman Collection v2.1, also what
// Bruno, Insomnia and Hoppscotch import) from openapi.yaml: one folder per tag, one request per
// operation and request example, with the examples' bodies and query values, path ids as collection
// variables, and each operation's authentication. `--write` rewrites it, `--check` fails when the
// committed file differs (npm run openapi:check). docs/api-contract.md, Examples.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { parse } = require('yaml');

const root = join(__dirname, '..');
const OUTPUT = join(root, 'clients', 'postman', 'rewards-api.postman_collection.json');
const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** `{{name}}` for a path parameter: `id` after `/rewards` is `rewardId`, after `/webhook-endpoints` `webhookEndpointId`. */
function variableOf(path, name) {
  if (name !== 'id') return name;
  const segments = path.split('/');
  const resource = segments[segments.indexOf('{id}') - 1].replace(/s$/, '');
  return `${resource.replace(/-([a-z])/g, (_, c) => c.toUpperCase())}Id`;
}

function exampleOf(parameter) {
  return parameter.example ?? parameter.schema?.example;
}

function authOf(operation) {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.length === 0) return { type: 'noauth' };
  if (schemes.includes('client_secret_basic')) {
    return {
      type: 'basic',
      basic: [
        { key: 'username', value: '{{clientId}}', type: 'string' },
        { key: 'password', value: '{{clientSecret}}', type: 'string' },
      ],
    };
  }
  return null; // the collection's bearer {{apiKey}}
}

function requestOf(path, method, operation, example, variables) {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((p) => p.in === 'path');
  for (const p of pathParameters) {
    const key = variableOf(path, p.name);
    if (!variables.has(key)) variables.set(key, { key, value: String(exampleOf(p) ?? ''), description: p.description ?? '' });
  }
  const pathSegments = path.slice(1).split('/').map((segment) => segment.replace(/^\{(\w+)\}$/, ':$1'));
  const query = parameters
    .filter((p) => p.in === 'query')
    .map((p) => {
      const value = exampleOf(p);
      return {
        key: p.name,
        value: value === undefined ? String(p.schema?.default ?? '') : String(value),
        ...(p.description ? { description: p.description } : {}),
        ...(value === undefined ? { disabled: true } : {}),
      };
    });
  const enabledQuery = query.filter((q) => !q.disabled).map((q) => `${q.key}=${encodeURIComponent(q.value)}`);
  const header = parameters
    .filter((p) => p.in === 'header')
    .map((p) => ({
      key: p.name,
      value: p.name === 'Idempotency-Key' ? '{{$guid}}' : '',
      ...(p.description ? { description: p.description } : {}),
      disabled: true,
    }));
  const request = {
    method: method.toUpperCase(),
    header,
    url: {
      raw: `{{baseUrl}}/${pathSegments.join('/')}${enabledQuery.length ? `?${enabledQuery.join('&')}` : ''}`,
      host: ['{{baseUrl}}'],
      path: pathSegments,
      ...(query.length ? { query } : {}),
      ...(pathParameters.length
        ? { variable: pathParameters.map((p) => ({ key: p.name, value: `{{${variableOf(path, p.name)}}}`, ...(p.description ? { description: p.description } : {}) })) }
        : {}),
    },
    ...(operation.description ? { description: operation.description } : {}),
  };
  const auth = authOf(operation);
  if (auth) request.auth = auth;
  const content = operation.requestBody?.content ?? {};
  if (content['application/json'] && example) {
    request.header.push({ key: 'Content-Type', value: 'application/json' });
    request.body = { mode: 'raw', raw: JSON.stringify(example.value, null, 2), options: { raw: { language: 'json' } } };
  } else if (content['application/x-www-form-urlencoded'] && example) {
    request.body = { mode: 'urlencoded', urlencoded: Object.entries(example.value).map(([key, value]) => ({ key, value: String(value), type: 'text' })) };
  }
  return request;
}

function resolve(document, schema) {
  return schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
}

/**
 * Test scripts that keep the ids an answer carries (`{reward: {id}}` sets `rewardId`), so the request
 * that reads, changes or deletes the object can be sent next without copying its id by hand.
 */
function capturedIds(document, path, operation) {
  // Only ids some path takes, and not on the operations that already name that object in their path.
  const wanted = new Set();
  for (const [other, item] of Object.entries(document.paths)) {
    for (const parameter of Object.values(item).flatMap((o) => o?.parameters ?? [])) {
      if (parameter.in === 'path') wanted.add(variableOf(other, parameter.name));
    }
  }
  for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') wanted.delete(variableOf(path, parameter.name));
  const lines = [];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = resolve(document, response.content?.['application/json']?.schema);
    for (const [property, value] of Object.entries(schema?.properties ?? {})) {
      if (!resolve(document, value)?.properties?.id) continue;
      const variable = `${property}Id`;
      if (!wanted.has(variable)) continue;
      const line = `if (pm.response.code === ${status}) pm.collectionVariables.set('${variable}', pm.response.json().${property}.id);`;
      if (!lines.includes(line)) lines.push(line);
    }
  }
  return lines;
}

/** The collection openapi.yaml gives now. */
function generate() {
  const document = parse(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  const folders = new Map((document.tags ?? []).map((tag) => [tag.name, { name: tag.name, description: tag.description ?? '', item: [] }]));
  const variables = new Map();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!folders.has(tag)) folders.set(tag, { name: tag, description: '', item: [] });
      const media = Object.values(operation.requestBody?.content ?? {})[0];
      const examples = Object.values(media?.examples ?? {});
      for (const example of examples.length ? examples : [null]) {
        const request = requestOf(path, method, operation, example, variables);
        const captures = capturedIds(document, path, operation);
        folders.get(tag).item.push({
          name: example && examples.length > 1 ? `${operation.summary}: ${example.summary}` : operation.summary ?? operation.operationId,
          ...(captures.length ? { event: [{ listen: 'test', script: { type: 'text/javascript', exec: captures } }] } : {}),
          request,
          response: [],
        });
      }
    }
  }
  return {
    info: {
      name: document.info.title,
      description: `${document.info.description}\n\nGenerated from openapi.yaml (API ${document.info.version}) by scripts/postman-collection.js. Set \`baseUrl\` and \`apiKey\` (an \`sk_\` key); the OAuth requests use \`clientId\` and \`clientSecret\`.`,
      schema: SCHEMA,
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }] },
    item: [...folders.values()].filter((folder) => folder.item.length > 0),
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', description: "The deployment's PUBLIC_BASE_URL." },
      { key: 'apiKey', value: '', description: 'An `sk_` API key or an OAuth access token.' },
      { key: 'clientId', value: '', description: 'OAuth client id (`oac_`), for /oauth/token and /oauth/revoke.' },
      { key: 'clientSecret', value: '', description: 'OAuth client secret (`ocs_`).' },
      ...[...variables.values()],
    ],
  };
}

const text = `${JSON.stringify(generate(), null, 2)}\n`;
const mode = process.argv[2];
if (mode === '--write') {
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT}\n`);
} else if (mode === '--check') {
  let committed = '';
  try {
    committed = readFileSync(OUTPUT, 'utf8');
  } catch {
    // missing: differs
  }
  if (committed !== text) {
    process.stderr.write('clients/postman/rewards-api.postman_collection.json differs from what openapi.yaml generates: run `npm run openapi`\n');
    process.exit(1);
  }
  process.stdout.write('clients/postman/rewards-api.postman_collection.json matches openapi.yaml\n');
} else {
  process.stderr.write('usage: postman-collection.js --write | --check\n');
  process.exit(2);
}

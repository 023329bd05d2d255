import { OPENAPI_PATH, readOpenApi } from './contract';

type Json = Record<string, any>;

export interface DocumentedOperation {
  operationId: string;
  method: string;
  path: string;
  operation: Json;
}

export interface NamedExample {
  name: string;
  value: unknown;
}

/** The committed contract, parsed. */
export function openapiDocument(): Json {
  return readOpenApi(OPENAPI_PATH);
}

/** Every operation of the contract, in document order. */
export function documentedOperations(document: Json = openapiDocument()): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue;
      operations.push({ operationId: operation.operationId, method: method.toUpperCase(), path, operation });
    }
  }
  return operations;
}

/** The media type and named examples of an operation's request body; none when it takes no body. */
export function bodyExamples(operation: Json): { mediaType: string; examples: NamedExample[] } | null {
  const content: Json | undefined = operation.requestBody?.content;
  if (!content) return null;
  const [mediaType, media] = Object.entries<Json>(content)[0];
  const examples = media.examples
    ? Object.entries<Json>(media.examples).map(([name, example]) => ({ name, value: example.value }))
    : media.example !== undefined
      ? [{ name: 'example', value: media.example }]
      : [];
  return { mediaType, examples };
}

/** A parameter's example, where the parameter gives one (OpenAPI allows it on the parameter or its schema). */
export function parameterExample(parameter: Json): unknown {
  return parameter.example ?? parameter.schema?.example;
}

/** The success status the contract documents: 201 where a create also documents a replay's 200, else its one 2xx. */
export function documentedSuccess(operation: Json): number {
  const successes = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
  if (successes.includes('201')) return 201;
  if (successes.length !== 1) throw new Error(`${operation.operationId} documents ${successes.join(', ')}: which one does its example get?`);
  return Number(successes[0]);
}

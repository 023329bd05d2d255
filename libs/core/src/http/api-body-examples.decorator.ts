import { ApiBody } from '@nestjs/swagger';

/**
 * One named request example of an operation (docs/api-contract.md, Examples): shown by the reference at
 * /docs, sent by the generated Postman collection, and sent to the service by
 * test/docs/openapi-examples.e2e-spec.ts, which expects the operation's documented success status.
 */
export interface RequestExample<T> {
  summary: string;
  description?: string;
  value: T;
}

export type RequestExamples<T> = Record<string, RequestExample<T>>;

/**
 * `@ApiBody` with named examples typed as the DTO, so an example that names a field the DTO does not
 * have, or leaves out a required one, does not compile.
 */
export function ApiBodyExamples<T>(
  type: new (...args: never[]) => T,
  examples: RequestExamples<NoInfer<T>>,
  options: { required?: boolean } = {},
): MethodDecorator {
  return ApiBody({ type, examples, ...options });
}

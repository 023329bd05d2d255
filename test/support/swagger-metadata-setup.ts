import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ApiResponse, DECORATORS, SwaggerModule } from '@nestjs/swagger';
import { join } from 'node:path';
import { SWAGGER_METADATA_FILE } from './swagger-metadata';

type MethodMetadata = Record<string, unknown> & { summary?: string; deprecated?: boolean; tags?: string[] };
type Metadata = { '@nestjs/swagger': { models: unknown[]; controllers: [Promise<Record<string, { prototype: object }>>, Record<string, Record<string, MethodMetadata>>][] } };

// Every e2e file (test/): the plugin's metadata on the DTOs and controllers before any app is built
// (swagger-metadata.ts says why the tests load it rather than compile it in). The unit specs of libs/
// and bench/ build no app and skip it.
beforeAll(async () => {
  if (!expect.getState().testPath?.startsWith(join(__dirname, '..'))) return;
  const metadata = (await (require(SWAGGER_METADATA_FILE) as { default: () => Promise<Metadata> }).default())['@nestjs/swagger'];
  await SwaggerModule.loadPluginMetadata(async () => ({ '@nestjs/swagger': { models: metadata.models } }));
  // A controller method's response type, as the compiling plugin adds it: beneath the method's own
  // response decorators, and not at all when one of them declares a success. (Loaded as above, it would be
  // dropped whenever the method declares any response, its error responses included.)
  for (const [module, classes] of metadata.controllers) {
    const exports = await module;
    for (const [name, methods] of Object.entries(classes)) {
      const prototype = exports[name].prototype as Record<string, object>;
      for (const [key, { summary: _summary, deprecated: _deprecated, tags: _tags, ...response }] of Object.entries(methods)) {
        const method = prototype[key];
        const declared = (Reflect.getMetadata(DECORATORS.API_RESPONSE, method) ?? {}) as Record<string, unknown>;
        if (Object.keys(declared).some((status) => Number(status) < 400)) continue;
        const scratch = { value: () => undefined };
        ApiResponse({ status: statusOf(method), ...response })(prototype, key, scratch);
        Reflect.defineMetadata(DECORATORS.API_RESPONSE, { ...Reflect.getMetadata(DECORATORS.API_RESPONSE, scratch.value), ...declared }, method);
      }
    }
  }
});

/** The status a handler answers with: its @HttpCode, else 201 for POST and 200 for the rest (as Nest does). */
function statusOf(method: object): number {
  const code = Reflect.getMetadata(HTTP_CODE_METADATA, method) as number | undefined;
  if (code) return code;
  return Reflect.getMetadata(METHOD_METADATA, method) === RequestMethod.POST ? 201 : 200;
}

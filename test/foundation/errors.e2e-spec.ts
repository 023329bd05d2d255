import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { seedMerchant, startTestApp, TestApp } from '../support/test-app';

/** A route that fails the way a real bug would: an unexpected error carrying SQL and a stack. */
@ApiExcludeController()
@Public()
@Controller('test-only')
class ExplodingController {
  @Get('explode')
  explode(): never {
    const error = new Error('relation "secret_table" does not exist: SELECT password_hash FROM users');
    (error as any).query = 'SELECT password_hash FROM users';
    throw error;
  }
}

describe('errors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ extra: { controllers: [ExplodingController] } });
  });
  afterAll(() => t.close());

  it('malformed JSON: 400 bad_request with issues', async () => {
    const merchant = await seedMerchant(t);
    const res = await t.api.as(merchant.key).patch('/v1/account/branding', undefined, { rawBody: '{"senderName": ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
    expect(res.body.message).toMatch(/JSON|body/i);
    expect(res.body.issues).toEqual([{ path: 'body', message: expect.any(String) }]);
  });

  it('unknown routes answer a JSON 404', async () => {
    const res = await t.api.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ error: 'not_found', message: 'No route for GET /v1/nothing-here.' });
  });

  it('a 500 carries a request id and never the stack or the SQL', async () => {
    const res = await fetch(`${t.baseUrl}/test-only/explode`);
    const body = (await res.json()) as { requestId: string };
    expect(res.status).toBe(500);
    expect(body).toEqual({ error: 'internal', message: 'Internal server error.', requestId: expect.stringMatching(/^req_/) });
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/SELECT|password_hash|secret_table|at .*\.ts/);
  });

  it("keeps a caller's X-Request-Id and makes one when there is none", async () => {
    const given = await fetch(`${t.baseUrl}/health/live`, { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await fetch(`${t.baseUrl}/health/live`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('sends security headers (helmet)', async () => {
    const res = await fetch(`${t.baseUrl}/health/live`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('health: live, and ready with both stores checked', async () => {
    expect(await (await fetch(`${t.baseUrl}/health/live`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ok',
      checks: { postgres: 'ok', redis: 'ok' },
      supplier: 'closed',
      fx: { source: 'sandbox', status: 'fresh', asOf: expect.any(String) },
    });
  });

  it('serves the Swagger UI at /docs and the document at /docs/openapi.json', async () => {
    const ui = await fetch(`${t.baseUrl}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger-ui');
    const doc = (await (await fetch(`${t.baseUrl}/docs/openapi.json`)).json()) as any;
    expect(doc.paths['/v1/account'].get.operationId).toBe('getAccount');
  });
});

import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { startTestApp } from '../support/test-app';

@ApiExcludeController()
@Public()
@Controller('test-only')
class SlowController {
  @Get('slow')
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 700));
    return { finished: true };
  }
}

describe('graceful shutdown', () => {
  it('lets a request in flight finish before the app closes', async () => {
    const t = await startTestApp({ extra: { controllers: [SlowController] } });
    const inFlight = fetch(`${t.baseUrl}/test-only/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = t.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ finished: true });
    await closing;
  });
});

import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { eventually } from '../support/processes';
import { startTestApp } from '../support/test-app';

/** Set once the slow request has reached its handler. */
let entered = false;

@ApiExcludeController()
@Public()
@Controller('test-only')
class SlowController {
  @Get('slow')
  async slow() {
    entered = true;
    await new Promise((resolve) => setTimeout(resolve, 700));
    return { finished: true };
  }
}

describe('graceful shutdown', () => {
  it('lets a request in flight finish before the app closes', async () => {
    const t = await startTestApp({ extra: { controllers: [SlowController] } });
    const inFlight = fetch(`${t.baseUrl}/test-only/slow`);
    // In its handler before the close starts: a fixed pause was no sign of that on a loaded machine.
    await eventually(async () => entered, 5_000, 10);
    const closing = t.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ finished: true });
    await closing;
  });
});

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { catchError, concatMap, from, Observable, throwError } from 'rxjs';
import { readContext, ReadRouting } from '@app/core';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Installed on every route when a read replica is configured (ApiModule; without one it is not there at
 * all), after the guards: on an authenticated route (docs/scaling.md, Read replica) the
 * handler runs knowing its credential, so the reads it sends to the replica can wait for that
 * credential's last write; and a request that may have written keeps the primary's position for the
 * credential before its response leaves, whatever the outcome (a refused request may have written too).
 */
@Injectable()
export class ReadYourWrites implements NestInterceptor {
  constructor(private readonly reads: ReadRouting) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    const writer = request.principal?.credentialId;
    if (!this.reads.replicated || writer === undefined) return next.handle();
    const handle = () =>
      SAFE_METHODS.has(request.method)
        ? next.handle()
        : next.handle().pipe(
            concatMap((value) => from(this.reads.noteWrite(writer).then(() => value))),
            catchError((error: unknown) => from(this.reads.noteWrite(writer)).pipe(concatMap(() => throwError(() => error)))),
          );
    // handle() binds the handler to the async context it is called in (Nest's interceptor chain): call it inside.
    return new Observable((subscriber) => readContext.run({ writer }, () => handle().subscribe(subscriber)));
  }
}

import { Global, Module } from '@nestjs/common';
import { AuthGuard } from './auth.guard';
import { CredentialResolverRegistry } from './credential-resolver';
import { RateLimiter } from './rate-limiter.service';
import { SessionStore } from './session-store';
import { SignedInGuard } from './signed-in.guard';
import { ReadYourWrites } from './read-your-writes.interceptor';
import { ReauthenticationLimiter } from './reauthentication-limiter.service';
import { SignInLimiter } from './sign-in-limiter.service';

const SHARED = [CredentialResolverRegistry, RateLimiter, AuthGuard, ReadYourWrites, SessionStore, SignedInGuard, SignInLimiter, ReauthenticationLimiter];

/** Global: every domain module's routes use the guards. */
@Global()
@Module({
  providers: SHARED,
  exports: SHARED,
})
export class AuthModule {}

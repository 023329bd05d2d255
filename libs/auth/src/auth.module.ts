import { Global, Module } from '@nestjs/common';
import { AuthGuard } from './auth.guard';
import { CredentialResolverRegistry } from './credential-resolver';
import { RateLimiter } from './rate-limiter.service';

@Global()
@Module({
  providers: [CredentialResolverRegistry, RateLimiter, AuthGuard],
  exports: [CredentialResolverRegistry, RateLimiter, AuthGuard],
})
export class AuthModule {}

import { DynamicModule, Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { AuthModule } from '@app/auth';
import { AppConfig, InfrastructureModule } from '@app/core';
import { OAuthModule } from '@app/oauth';

@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [InfrastructureModule.forRoot(config), AuthModule, AccountModule, OAuthModule] };
  }
}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';
import { ApiKeyService } from './api-key.service';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';
import { MembershipEntity } from './entities/membership.entity';
import { UserEntity } from './entities/user.entity';
import { MerchantService } from './merchant.service';
import { PasswordHasher, passwordKdfProvider } from './password-hasher';
import { TotpService } from './totp.service';
import { UserDirectory } from './user-directory.service';
import { IdentityRepository } from './identity/identity.repository';
import { InvitationService } from './identity/invitation.service';
import { TeamService } from './identity/team.service';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, UserEntity, MembershipEntity, ApiKeyEntity]), AuditModule],
  controllers: [AccountController],
  providers: [AccountService, ApiKeyService, MerchantService, UserDirectory, PasswordHasher, passwordKdfProvider, TotpService, IdentityRepository, TeamService, InvitationService],
  exports: [AccountService, ApiKeyService, MerchantService, UserDirectory, PasswordHasher, TotpService, IdentityRepository, TeamService, InvitationService],
})
export class AccountModule {}

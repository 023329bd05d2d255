import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller';
import { AuditLog } from './audit-log.service';

/** The account's audit log: written by the services that make audited changes, read by the dashboard. */
@Module({
  controllers: [AuditLogController],
  providers: [AuditLog],
  exports: [AuditLog],
})
export class AuditModule {}

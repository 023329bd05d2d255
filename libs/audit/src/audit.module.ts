import { Module } from '@nestjs/common';
import { AuditTrail } from '@app/auth';
import { AuditLogController } from './audit-log.controller';
import { AuditLog } from './audit-log.service';
import { AuditLogTrail } from './audit-log-trail';

/** The account's audit log: written by the services that make audited changes, read by the dashboard.
 * It is also where the dashboard's AuditTrail writes. */
@Module({
  controllers: [AuditLogController],
  providers: [AuditLog, { provide: AuditTrail, useClass: AuditLogTrail }],
  exports: [AuditLog, AuditTrail],
})
export class AuditModule {}

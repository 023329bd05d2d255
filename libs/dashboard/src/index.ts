export * from './dashboard.module';
export { TOTP_SEALED_COLUMNS } from './totp.service';

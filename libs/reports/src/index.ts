// What other modules may use of reports (docs/reports.md); the entity stays inside.
export * from './reports.module';
export * from './reports-worker.module';
export { ReportBuilder, REPORT_BUILD_SWEEP, REPORT_CHUNK_BYTES, REPORT_EXPIRY_SWEEP } from './report-builder';
export { csvText, guardFormula } from './report-csv';

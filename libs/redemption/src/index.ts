export * from './redemption.module';
export { REDEMPTION_MISSES_PER_WINDOW } from './redemption.controller';
export { code128Symbols } from './code128';
export * from './redemption-preview.module';

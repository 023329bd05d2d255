// What other modules may use; the entities stay inside (docs/architecture.md, Table ownership).
export * from './topups.module';

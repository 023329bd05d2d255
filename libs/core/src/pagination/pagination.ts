/** Turns page/page_size into the LIMIT/OFFSET pair a query needs. */
export function pageWindow(page: number, pageSize: number): { limit: number; offset: number } {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}

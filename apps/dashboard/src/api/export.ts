import { download, toCsv } from '../format/csv';

/**
 * Walks every page of a list (100 a request, newest first) and saves it as CSV. `fetchPage` answers
 * one page's rows and the list's total; `onProgress` hears how many rows are in so far.
 */
export async function exportCsv<T>(
  filename: string,
  header: string[],
  toRow: (item: T) => (string | number | null | undefined)[],
  fetchPage: (page: number) => Promise<{ items: T[]; total: number }>,
  onProgress: (done: number, total: number) => void,
): Promise<void> {
  const rows: (string | number | null | undefined)[][] = [header];
  for (let page = 1; ; page += 1) {
    const { items, total } = await fetchPage(page);
    for (const item of items) rows.push(toRow(item));
    onProgress(rows.length - 1, total);
    if (items.length === 0 || rows.length - 1 >= total) break;
  }
  download(filename, toCsv(rows));
}

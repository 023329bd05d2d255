import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { components } from '@client/schema';
import { unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

export type Report = components['schemas']['ReportDto'];
export type ReportType = components['schemas']['CreateReportDto']['type'];
export type ReportFilters = components['schemas']['ReportFiltersDto'];

/** A report not yet built: the list asks again every 2 s while one is on it. */
const open = (report: Report) => report.status === 'PENDING' || report.status === 'RUNNING';

/** A page of the account's reports, newest first (docs/reports.md); refreshed while one is still being built. */
export function useReports(page: number, pageSize: number) {
  return useQuery({
    queryKey: queryKeys.reports(page),
    queryFn: async () => unwrap(await v1.GET('/v1/reports', { params: { query: { page, page_size: pageSize } } })),
    refetchInterval: (query) => (query.state.data?.reports.some(open) ? 2_000 : false),
  });
}

/** Requests a report; the list shows it PENDING at once. */
export function useRequestReport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { type: ReportType; filters: ReportFilters }) => unwrap(await v1.POST('/v1/reports', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.reports() }),
  });
}

/** Where the browser downloads a completed report's CSV (the session cookie authenticates it). */
export const downloadUrl = (report: Pick<Report, 'id'>) => `/v1/reports/${encodeURIComponent(report.id)}/download`;

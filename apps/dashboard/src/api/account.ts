import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap, v1 } from './http';
import { queryKeys } from './query-keys';

/** The current account (name, currency, branding); every money figure is formatted in its currency. */
export function useAccount() {
  return useQuery({
    queryKey: queryKeys.account(),
    queryFn: async () => (await unwrap(await v1.GET('/v1/account'))).account,
    staleTime: 5 * 60_000,
  });
}

/** The Overview's figures: the wallet's balances and the rewards' totals. */
export function useOverview() {
  return useQuery({ queryKey: queryKeys.overview(), queryFn: async () => unwrap(await v1.GET('/v1/account/overview')) });
}

/** Value sent per UTC day and currency over the last `days` days (30 or 90), for the Overview chart. */
export function useSentPerDay(days: 30 | 90) {
  return useQuery({
    queryKey: queryKeys.overviewDaily(days),
    queryFn: async () => unwrap(await v1.GET('/v1/account/overview/daily', { params: { query: { days } } })),
  });
}

/** Saves the sender name, logo and colour recipients see; the account is read again. */
export function useUpdateBranding() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { senderName: string | null; logoUrl: string | null; brandColor: string | null }) =>
      unwrap(await v1.PATCH('/v1/account/branding', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.account() }),
  });
}

/** The low-balance alert thresholds, one per currency at most (docs/alerts.md). */
export function useAlertSettings() {
  return useQuery({
    queryKey: queryKeys.alertSettings(),
    queryFn: async () => (await unwrap(await v1.GET('/v1/account/alert-settings'))).alertSettings,
  });
}

/** Replaces the thresholds: a currency left out has no alert. */
export function useSaveAlertSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (lowBalance: { currency: string; thresholdCents: number }[]) =>
      (await unwrap(await v1.PUT('/v1/account/alert-settings', { body: { alertSettings: { lowBalance } } }))).alertSettings,
    onSuccess: (saved) => client.setQueryData(queryKeys.alertSettings(), saved),
  });
}

/** When recipients get reminder e-mails of rewards they have not used up (docs/delivery.md, Reminders). */
export function useReminderSettings() {
  return useQuery({
    queryKey: queryKeys.reminderSettings(),
    queryFn: async () => (await unwrap(await v1.GET('/v1/account/reminder-settings'))).reminderSettings,
  });
}

/** Replaces the reminder settings. */
export function useSaveReminderSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (reminderSettings: { afterDays: number[]; beforeExpiryDays: number | null }) =>
      (await unwrap(await v1.PUT('/v1/account/reminder-settings', { body: { reminderSettings } }))).reminderSettings,
    onSuccess: (saved) => client.setQueryData(queryKeys.reminderSettings(), saved),
  });
}

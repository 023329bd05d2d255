import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dash, unwrap } from './http';
import { queryKeys } from './query-keys';

/** The signed-in user's own security (password, two-factor sign-in) and the password-reset forms; nothing here is cached. */

export function useChangePassword() {
  return useMutation({
    mutationFn: async (body: { currentPassword: string; newPassword: string }) => unwrap(await dash.POST('/dashboard/api/me/password', { body })),
  });
}

/** Starts two-factor set-up: a pending secret and its otpauth:// link. */
export function useStartTotp(onStarted: (answer: { secret: string; otpauthUrl: string }) => Promise<void>) {
  return useMutation({ mutationFn: async () => unwrap(await dash.POST('/dashboard/api/me/totp')), onSuccess: onStarted });
}

/** Turning two-factor sign-in on or off changes the session's `user.twoFactorEnabled`: it is read again. */
export function useConfirmTotp(onConfirmed: () => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (code: string) => unwrap(await dash.POST('/dashboard/api/me/totp/confirm', { body: { code } })),
    onSuccess: async () => {
      onConfirmed();
      await client.invalidateQueries({ queryKey: queryKeys.session() });
    },
  });
}

export function useDisableTotp(onDisabled: () => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (code: string) => unwrap(await dash.POST('/dashboard/api/me/totp/disable', { body: { code } })),
    onSuccess: async () => {
      onDisabled();
      await client.invalidateQueries({ queryKey: queryKeys.session() });
    },
  });
}

/** Asks for a reset link; the answer is the same whether or not the e-mail has a user. */
export function useRequestPasswordReset() {
  return useMutation({ mutationFn: async (email: string) => unwrap(await dash.POST('/dashboard/api/password-reset', { body: { email } })) });
}

export function useResetPassword(token: string) {
  return useMutation({
    mutationFn: async (password: string) => unwrap(await dash.POST('/dashboard/api/password-reset/{token}', { params: { path: { token } }, body: { password } })),
  });
}

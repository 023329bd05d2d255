import { resolve } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyService, MerchantService, TOTP_SEALED_COLUMNS } from '@app/account';
import { OPERATOR_ORIGIN } from '@app/audit';
import { APP_CONFIG, AppConfig, IDEMPOTENCY_SEALED_COLUMNS, KeyRing, rotateSealedColumn, SealedColumn } from '@app/core';
import { OAuthClientService } from '@app/oauth';
import { REWARD_SEALED_COLUMNS } from '@app/rewards';
import { WEBHOOK_SEALED_COLUMNS } from '@app/webhooks';
import { listOutbox } from './mail-outbox';

/** Every column of sealed values (docs/secrets.md), each described by the module that owns it. */
export const SEALED_COLUMNS: SealedColumn[] = [
  ...REWARD_SEALED_COLUMNS,
  ...WEBHOOK_SEALED_COLUMNS,
  ...TOTP_SEALED_COLUMNS,
  ...IDEMPOTENCY_SEALED_COLUMNS,
];

/** One operator command: its flags (parsed by node's parseArgs) and what it does. */
export interface CliCommand {
  usage: string;
  options: Record<string, { type: 'string'; multiple?: boolean }>;
  required: string[];
  run(app: INestApplicationContext, flags: Record<string, string | string[] | undefined>): Promise<object>;
}

const text = (value: string | string[] | undefined): string => (Array.isArray(value) ? value[0] : value) ?? '';

export const COMMANDS: Record<string, CliCommand> = {
  'merchant:create': {
    usage: 'merchant:create --name <n> --email <owner e-mail> --password <pw> [--currency USD]',
    options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, currency: { type: 'string' } },
    required: ['name', 'email', 'password'],
    run: (app, flags) =>
      app.get(MerchantService).createMerchant({
        name: text(flags.name),
        email: text(flags.email),
        password: text(flags.password),
        currency: flags.currency ? text(flags.currency) : undefined,
      }, OPERATOR_ORIGIN),
  },
  'api-key:create': {
    usage: 'api-key:create --account <accountId> --scopes read,write [--name <label>]',
    options: { account: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
    required: ['account', 'scopes'],
    run: (app, flags) =>
      app.get(ApiKeyService).createByOperator(
        text(flags.account),
        text(flags.scopes).split(',').map((scope) => scope.trim()).filter(Boolean),
        text(flags.name),
        OPERATOR_ORIGIN,
      ),
  },
  'api-key:revoke': {
    usage: 'api-key:revoke --id <keyId>',
    options: { id: { type: 'string' } },
    required: ['id'],
    run: (app, flags) => app.get(ApiKeyService).revoke(text(flags.id), OPERATOR_ORIGIN),
  },
  'encryption:rotate': {
    usage: 'encryption:rotate [--batch-size 500]',
    options: { 'batch-size': { type: 'string' } },
    required: [],
    run: async (app, flags) => {
      const batchSize = flags['batch-size'] === undefined ? 500 : Number(text(flags['batch-size']));
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new Error('--batch-size must be an integer from 1 to 10000');
      const [dataSource, keyRing] = [app.get(DataSource), app.get(KeyRing)];
      let reencrypted = 0;
      for (const column of SEALED_COLUMNS) reencrypted += await rotateSealedColumn(dataSource, keyRing, column, { batchSize });
      return { reencrypted };
    },
  },
  'oauth-client:create': {
    usage: 'oauth-client:create --name <n> --redirect-uri <uri> [--redirect-uri <uri> ...] --scopes "<space-separated>"',
    options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, scopes: { type: 'string' } },
    required: ['name', 'redirect-uri', 'scopes'],
    run: (app, flags) =>
      app.get(OAuthClientService).create({
        name: text(flags.name),
        redirectUris: [flags['redirect-uri'] ?? []].flat(),
        scopes: text(flags.scopes).split(/\s+/).filter(Boolean),
      }, OPERATOR_ORIGIN),
  },
  'mail:list': {
    usage: 'mail:list [--limit 20]   (the e-mails written to MAIL_OUTBOX_DIR when SMTP_URL is unset, newest first)',
    options: { limit: { type: 'string' } },
    required: [],
    run: async (app, flags) => {
      const limit = flags.limit === undefined ? 20 : Number(text(flags.limit));
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('--limit must be an integer from 1 to 1000');
      const config = app.get<AppConfig>(APP_CONFIG);
      const outbox = resolve(config.mailOutboxDir);
      const messages = await listOutbox(outbox, limit);
      return config.smtpUrl
        ? { outbox, note: 'SMTP_URL is set: new e-mails go to that server, not to this folder', messages }
        : { outbox, messages };
    },
  },
};

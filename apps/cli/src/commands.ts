import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeyService, MerchantService } from '@app/account';
import { OAuthClientService } from '@app/oauth';

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
      }),
  },
  'api-key:create': {
    usage: 'api-key:create --account <accountId> --scopes read,write [--name <label>]',
    options: { account: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
    required: ['account', 'scopes'],
    run: (app, flags) =>
      app.get(ApiKeyService).create(
        text(flags.account),
        text(flags.scopes).split(',').map((scope) => scope.trim()).filter(Boolean),
        text(flags.name),
      ),
  },
  'api-key:revoke': {
    usage: 'api-key:revoke --id <keyId>',
    options: { id: { type: 'string' } },
    required: ['id'],
    run: (app, flags) => app.get(ApiKeyService).revoke(text(flags.id)),
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
      }),
  },
};

import { cliRunner } from '@acs/testing';

export type { CliResult } from '@acs/testing';
export const { buildCli, runCli } = cliRunner('services/keys');

/** The key, secret and id the `create` command prints. */
export function parseCreated(stdout: string): { id: string; key: string; secret: string } {
  const id = /API key created \(([0-9a-f-]{36})\)/.exec(stdout)?.[1];
  const key = /X-Api-Key:\s+(\S+)/.exec(stdout)?.[1];
  const secret = /X-Api-Secret:\s+(\S+)/.exec(stdout)?.[1];
  if (!id || !key || !secret) throw new Error(`unexpected create output:\n${stdout}`);
  return { id, key, secret };
}

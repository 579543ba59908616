import { cliRunner } from '@acs/testing';

export type { CliResult } from '@acs/testing';
export const { buildCli, runCli } = cliRunner('services/catalog', { killAfterMs: 120_000 }); // large imports take a while

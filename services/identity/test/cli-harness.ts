import { cliRunner } from '@acs/testing';

export type { CliResult } from '@acs/testing';
export const { buildCli, runCli } = cliRunner('services/identity');

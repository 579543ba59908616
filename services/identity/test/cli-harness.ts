import { cliRunner } from '@acs/testing';

export type { CliResult } from '@acs/testing';
export const { ROOT, CLI, buildCli, runCli } = cliRunner('services/identity');

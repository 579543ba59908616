/**
 * How long the fuzz suite runs. `npm test` uses the fixed defaults (the same inputs every time,
 * a couple of minutes); `npm run fuzz -- --runs N --seed S` passes others through the environment.
 */
const DEFAULT_SEED = 20_261_125;
const DEFAULT_RUNS_PER_OPERATION = 150;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got ${raw}`);
  return value;
}

export const fuzzSettings = () => ({
  seed: positiveInteger('FUZZ_SEED', DEFAULT_SEED),
  runsPerOperation: positiveInteger('FUZZ_RUNS', DEFAULT_RUNS_PER_OPERATION),
});

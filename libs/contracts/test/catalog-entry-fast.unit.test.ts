import { readFileSync } from 'node:fs';
import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import {
  AMPLIFIER_CLASSES,
  DAC_INPUTS,
  DAC_OUTPUTS,
  DSD_RATES,
  LAST_RELEASE_YEAR,
  SPEAKER_DESIGNS,
  catalogEntryInputSchema,
  parseCatalogEntryFast,
} from '@acs/contracts';

const seedUrl = new URL('../../../services/catalog/seed/products.json', import.meta.url);
const seed: unknown[] = JSON.parse(readFileSync(seedUrl, 'utf8'));

/** The contract of the fast path: no answer, or zod's own answer. */
function expectFastAgreesWithZod(row: unknown): void {
  const fast = parseCatalogEntryFast(row);
  if (fast === undefined) return;
  const zod = catalogEntryInputSchema.safeParse(row);
  expect(zod.success).toBe(true);
  expect(fast).toStrictEqual(zod.data);
}

// Values near every rule's edges, valid and not, so random rows land on both sides of each check.
const text = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 0, maxLength: max + 2 }),
    fc.constantFrom('', ' ', '  x  ', '\u00a0Kef\u2028', 'é'.repeat(max), ` ${'a'.repeat(max)} `, 'a'.repeat(max + 1)),
    fc.constant(42),
    fc.constant(null),
  );
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0, -0, 0.01, 0.07 * 29, 2.03, 0.1 + 0.2, 1499.99, 1e-9, 9_999_999_999.99, 2 ** 53, 1.5),
  fc.constant('12'),
);
const year = fc.oneof(
  fc.integer({ min: 1940, max: LAST_RELEASE_YEAR + 2 }),
  fc.constantFrom(2000.5, '2020', 1949, 1950, LAST_RELEASE_YEAR, LAST_RELEASE_YEAR + 1),
);
const words = (vocabulary: readonly string[]) =>
  fc.oneof(
    fc.uniqueArray(fc.constantFrom(...vocabulary), { minLength: 1 }),
    fc.array(fc.constantFrom(...vocabulary, 'USB', 'other'), { maxLength: 4 }),
    fc.constant('usb'),
  );
const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
/** An object from optional fields, sometimes with a stray key. */
const record = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .record(Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, maybe(value)])), { requiredKeys: [] })
    .chain((value) => fc.oneof(fc.constant(value), fc.constant({ ...value, extra: 1 })))
    .map((value) => JSON.parse(JSON.stringify(value)) as unknown);

const dacSpecs = record({
  chip: text(120),
  maxSampleRateHz: number,
  maxBitDepth: fc.constantFrom(16, 24, 32, 8, '24'),
  dsd: fc.constantFrom(...DSD_RATES, null, 'DSD2048'),
  inputs: words(DAC_INPUTS),
  outputs: words(DAC_OUTPUTS),
});
const amplifierSpecs = record({
  powerPerChannelW: number,
  powerLoadOhms: number,
  amplifierClass: fc.constantFrom(...AMPLIFIER_CLASSES, 'B'),
  channels: number,
});
const speakerSpecs = record({
  sensitivityDb: number,
  impedanceOhms: number,
  frequencyLowHz: number,
  frequencyHighHz: number,
  design: fc.constantFrom(...SPEAKER_DESIGNS, 'tower'),
});
const row = record({
  type: fc.constantFrom('dac', 'amplifier', 'speaker', 'headphone'),
  brand: text(80),
  model: text(120),
  price: number,
  currency: fc.constantFrom('USD', 'EUR', 'usd', 'US', 7),
  releaseYear: year,
  specs: fc.oneof(dacSpecs, amplifierSpecs, speakerSpecs, fc.constant(null)),
});

const validCommon = {
  brand: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
  model: fc.string({ minLength: 1, maxLength: 100 }).filter((s) => s.trim().length > 0),
  price: fc.integer({ min: 0, max: 99_999_999 }).map((cents) => cents / 100),
  releaseYear: fc.integer({ min: 1950, max: LAST_RELEASE_YEAR }),
};
const validRow = fc.oneof(
  fc.record({
    type: fc.constant('dac'),
    ...validCommon,
    currency: fc.constantFrom('USD', 'EUR'),
    specs: fc.record({
      chip: fc.constantFrom('ESS ES9038PRO', ' AKM AK4499 ', 'R-2R "ladder" \\ discrete'),
      maxSampleRateHz: fc.integer({ min: 1, max: 3_072_000 }),
      maxBitDepth: fc.constantFrom(16, 24, 32),
      dsd: fc.constantFrom(...DSD_RATES, null),
      inputs: fc.uniqueArray(fc.constantFrom(...DAC_INPUTS), { minLength: 1 }),
      outputs: fc.uniqueArray(fc.constantFrom(...DAC_OUTPUTS), { minLength: 1 }),
    }),
  }),
  fc.record({
    type: fc.constant('amplifier'),
    ...validCommon,
    specs: fc.record({
      powerPerChannelW: fc.double({ min: 0.1, max: 2000, noNaN: true }),
      powerLoadOhms: fc.constantFrom(2, 4, 8),
      amplifierClass: fc.constantFrom(...AMPLIFIER_CLASSES),
      channels: fc.integer({ min: 1, max: 16 }),
    }),
  }),
  fc.record({
    type: fc.constant('speaker'),
    ...validCommon,
    specs: fc.record({
      sensitivityDb: fc.double({ min: 70, max: 110, noNaN: true }),
      impedanceOhms: fc.constantFrom(4, 6, 8),
      frequencyLowHz: fc.integer({ min: 10, max: 100 }),
      frequencyHighHz: fc.integer({ min: 101, max: 50_000 }),
      design: fc.constantFrom(...SPEAKER_DESIGNS),
    }),
  }),
);

/** A valid row with one or two fields (of the row or of its specs) set to an edge value, removed, or added. */
const edgeValue = fc.oneof(
  text(120),
  number,
  year,
  words([...DAC_INPUTS, ...DAC_OUTPUTS]),
  fc.constantFrom(...DSD_RATES, null, 16, 'AB', 'dac'),
);
const specsKeys = [
  ...['chip', 'maxSampleRateHz', 'maxBitDepth', 'dsd', 'inputs', 'outputs'],
  ...['powerPerChannelW', 'powerLoadOhms', 'amplifierClass', 'channels'],
  ...['sensitivityDb', 'impedanceOhms', 'frequencyLowHz', 'frequencyHighHz', 'design'],
];
const mutation = fc.record({
  inSpecs: fc.boolean(),
  key: fc.constantFrom('type', 'brand', 'model', 'price', 'currency', 'releaseYear', 'specs', 'extra', ...specsKeys),
  value: maybe(edgeValue),
});
const mutatedRow = fc.tuple(validRow, fc.array(mutation, { minLength: 1, maxLength: 2 })).map(([entry, mutations]) => {
  const copy = JSON.parse(JSON.stringify(entry)) as Record<string, unknown>;
  for (const { inSpecs, key, value } of mutations) {
    const target = inSpecs && typeof copy.specs === 'object' && copy.specs !== null ? (copy.specs as Record<string, unknown>) : copy;
    if (value === undefined) delete target[key];
    else target[key] = value;
  }
  return copy;
});

describe('parseCatalogEntryFast (the import hot path)', () => {
  it('answers only rows zod accepts, with the value zod answers (random rows near every rule)', () => {
    fc.assert(fc.property(row, expectFastAgreesWithZod), { numRuns: 10_000 });
  });

  it('answers only rows zod accepts, with the value zod answers (valid rows with one or two fields broken)', () => {
    fc.assert(fc.property(mutatedRow, expectFastAgreesWithZod), { numRuns: 20_000 });
  });

  it('answers every valid row itself, equal to zod (so imports take the fast path)', () => {
    fc.assert(
      fc.property(validRow, (entry) => {
        const fast = parseCatalogEntryFast(entry);
        expect(fast).toBeDefined();
        expect(fast).toStrictEqual(catalogEntryInputSchema.parse(entry));
      }),
      { numRuns: 5_000 },
    );
  });

  it('answers every product of the bundled seed, equal to zod', () => {
    for (const entry of seed) {
      expect(parseCatalogEntryFast(entry)).toStrictEqual(catalogEntryInputSchema.parse(entry));
    }
  });

  it('declines what only a JSON.parse of hostile text or a caller in code could build', () => {
    const dac = seed.find((entry) => (entry as { type: string }).type === 'dac') as Record<string, unknown>;
    expect(parseCatalogEntryFast(dac)).toBeDefined();
    expect(parseCatalogEntryFast(JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(dac).slice(1)}`))).toBeUndefined();
    expect(parseCatalogEntryFast(Object.assign(Object.create({ inherited: 1 }), dac))).toBeUndefined();
    expect(parseCatalogEntryFast({ ...dac, currency: undefined })).toBeUndefined();
    expect(parseCatalogEntryFast([dac])).toBeUndefined();
    expect(parseCatalogEntryFast({ ...dac, price: 0.001 })).toBeUndefined();
    expect(parseCatalogEntryFast({ ...dac, specs: { ...(dac.specs as object), inputs: ['usb', 'usb'] } })).toBeUndefined();
  });
});

import { readFileSync } from 'node:fs';
import { describe, it, expect } from '@jest/globals';
import { CATALOG_TYPES, catalogEntryInputSchema, catalogEntrySchema } from '@acs/contracts';

// Relative to this file so the test does not depend on the working directory jest is started from.
const seedUrl = new URL('../../../services/catalog/seed/products.json', import.meta.url);
const seed: unknown[] = JSON.parse(readFileSync(seedUrl, 'utf8'));

/** A known-good entry of each type, cloned per test so mutations stay local. */
const validDac = () => ({
  type: 'dac',
  brand: 'Topping',
  model: 'E50',
  price: 249,
  currency: 'USD',
  releaseYear: 2021,
  specs: {
    chip: 'ESS ES9068AS',
    maxSampleRateHz: 768000,
    maxBitDepth: 32,
    dsd: 'DSD512',
    inputs: ['usb', 'coaxial', 'optical'],
    outputs: ['rca', 'xlr'],
  },
});

const validSpeaker = () => ({
  type: 'speaker',
  brand: 'KEF',
  model: 'LS50 Meta',
  price: 1499.99,
  releaseYear: 2020,
  specs: { sensitivityDb: 85, impedanceOhms: 8, frequencyLowHz: 79, frequencyHighHz: 28000, design: 'bookshelf' },
});

const validAmplifier = () => ({
  type: 'amplifier',
  brand: 'Schiit',
  model: 'Vidar',
  price: 699,
  releaseYear: 2017,
  specs: { powerPerChannelW: 100, powerLoadOhms: 8, amplifierClass: 'AB', channels: 2 },
});

describe('catalog seed data', () => {
  it('is a JSON array', () => {
    expect(Array.isArray(seed)).toBe(true);
  });

  it('parses every entry with catalogEntryInputSchema', () => {
    const failures = seed
      .map((entry, index) => ({ index, entry, result: catalogEntryInputSchema.safeParse(entry) }))
      .filter(({ result }) => !result.success)
      .map(({ index, entry, result }) => ({ index, entry, issues: result.error?.issues }));
    expect(failures).toEqual([]);
  });

  it('has at least 60 entries from at least 10 brands covering every type', () => {
    const entries = seed.map((entry) => catalogEntryInputSchema.parse(entry));
    expect(entries.length).toBeGreaterThanOrEqual(60);
    expect(new Set(entries.map((entry) => entry.brand)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(entries.map((entry) => entry.type))).toEqual(new Set(CATALOG_TYPES));
  });

  it('has no duplicate (type, brand, model), ignoring case', () => {
    const keys = seed
      .map((entry) => catalogEntryInputSchema.parse(entry))
      .map((entry) => [entry.type, entry.brand, entry.model].join('\u0000').toLowerCase());
    const duplicates = keys.filter((key, index) => keys.indexOf(key) !== index);
    expect(duplicates).toEqual([]);
  });
});

describe('catalogEntryInputSchema', () => {
  it('accepts a valid entry of each type and defaults currency to USD', () => {
    expect(catalogEntryInputSchema.parse(validDac()).currency).toBe('USD');
    expect(catalogEntryInputSchema.parse(validAmplifier()).currency).toBe('USD');
    expect(catalogEntryInputSchema.parse(validSpeaker()).currency).toBe('USD');
  });

  it('trims brand and model', () => {
    const parsed = catalogEntryInputSchema.parse({ ...validDac(), brand: '  Topping ', model: ' E50  ' });
    expect(parsed.brand).toBe('Topping');
    expect(parsed.model).toBe('E50');
  });

  it('rejects unknown keys at the top level and inside specs', () => {
    expect(catalogEntryInputSchema.safeParse({ ...validDac(), colour: 'black' }).success).toBe(false);
    const dac = validDac();
    expect(catalogEntryInputSchema.safeParse({ ...dac, specs: { ...dac.specs, maxSampleRate: 768000 } }).success).toBe(false);
  });

  it('rejects an unknown type', () => {
    expect(catalogEntryInputSchema.safeParse({ ...validDac(), type: 'turntable' }).success).toBe(false);
  });

  it('rejects a specs object that belongs to another type', () => {
    expect(catalogEntryInputSchema.safeParse({ ...validDac(), specs: validSpeaker().specs }).success).toBe(false);
    expect(catalogEntryInputSchema.safeParse({ ...validSpeaker(), specs: validAmplifier().specs }).success).toBe(false);
    expect(catalogEntryInputSchema.safeParse({ ...validAmplifier(), specs: validDac().specs }).success).toBe(false);
  });

  it('rejects frequencyLowHz >= frequencyHighHz', () => {
    const speaker = validSpeaker();
    const equal = { ...speaker, specs: { ...speaker.specs, frequencyLowHz: 20000, frequencyHighHz: 20000 } };
    const inverted = { ...speaker, specs: { ...speaker.specs, frequencyLowHz: 30000, frequencyHighHz: 40 } };
    expect(catalogEntryInputSchema.safeParse(equal).success).toBe(false);
    expect(catalogEntryInputSchema.safeParse(inverted).success).toBe(false);
  });

  it('rejects bad field values', () => {
    const dac = validDac();
    const bad: unknown[] = [
      { ...dac, price: -1 },
      { ...dac, price: 19.999 },
      { ...dac, currency: 'usd' },
      { ...dac, releaseYear: 1949 },
      { ...dac, releaseYear: new Date().getFullYear() + 2 },
      { ...dac, brand: '   ' },
      { ...dac, specs: { ...dac.specs, maxBitDepth: 20 } },
      { ...dac, specs: { ...dac.specs, dsd: 'DSD32' } },
      { ...dac, specs: { ...dac.specs, inputs: ['usb', 'firewire'] } },
      { ...dac, specs: { ...dac.specs, inputs: ['usb', 'usb'] } },
    ];
    for (const entry of bad) expect(catalogEntryInputSchema.safeParse(entry).success).toBe(false);
  });

  it('accepts prices with two decimals', () => {
    for (const price of [0, 19.99, 99.95, 279.98, 1499.99]) {
      expect(catalogEntryInputSchema.safeParse({ ...validDac(), price }).success).toBe(true);
    }
  });
});

describe('catalogEntrySchema', () => {
  it('requires a positive integer id', () => {
    expect(catalogEntrySchema.parse({ ...validDac(), id: 1 }).id).toBe(1);
    expect(catalogEntrySchema.safeParse(validDac()).success).toBe(false);
    expect(catalogEntrySchema.safeParse({ ...validDac(), id: 0 }).success).toBe(false);
    expect(catalogEntrySchema.safeParse({ ...validDac(), id: 1.5 }).success).toBe(false);
  });
});

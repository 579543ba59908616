import {
  AMPLIFIER_CLASSES,
  DAC_INPUTS,
  DAC_OUTPUTS,
  DSD_RATES,
  FIRST_RELEASE_YEAR,
  LAST_RELEASE_YEAR,
  SPEAKER_DESIGNS,
  type CatalogEntryInput,
} from './catalog.js';

/**
 * The hot path of catalog imports: catalogEntryInputSchema's rules written out by hand, about ten
 * times faster than zod on a valid row (docs/performance.md). It answers the parsed entry only
 * when it is certain zod would accept the row and return the same value; anything else (an
 * invalid row, or a shape it does not know) is `undefined`, and the caller asks zod, which stays
 * the judge and the author of every error message. test/catalog-entry-fast.unit.test.ts holds both to
 * that on random rows, so a change to the schema that is not made here makes the fast path
 * decline (slower, still right) or fails that test, never lets a bad row through.
 */
export function parseCatalogEntryFast(row: unknown): CatalogEntryInput | undefined {
  if (!isPlainObject(row)) return undefined;
  const { type } = row;
  if (type !== 'dac' && type !== 'amplifier' && type !== 'speaker') return undefined;
  let keys = 0;
  for (const key in row) {
    if (!Object.hasOwn(row, key)) return undefined;
    if (!ENTRY_KEYS.has(key)) return undefined;
    keys += 1;
  }
  const brand = trimmedText(row.brand, 80);
  const model = trimmedText(row.model, 120);
  const { price, releaseYear } = row;
  const currency = row.currency === undefined ? 'USD' : row.currency;
  if (brand === undefined || model === undefined) return undefined;
  if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || !isWholeCents(price)) return undefined;
  if (typeof currency !== 'string' || !CURRENCY.test(currency)) return undefined;
  if (!Number.isSafeInteger(releaseYear) || (releaseYear as number) < FIRST_RELEASE_YEAR || (releaseYear as number) > LAST_RELEASE_YEAR) {
    return undefined;
  }
  // `currency` may be absent (it defaults); every other key must be there.
  if (keys !== (row.currency === undefined ? 6 : 7) || !('specs' in row)) return undefined;
  const common = { brand, model, price, currency, releaseYear: releaseYear as number };
  if (type === 'dac') {
    const specs = dacSpecs(row.specs);
    return specs && { type, ...common, specs };
  }
  if (type === 'amplifier') {
    const specs = amplifierSpecs(row.specs);
    return specs && { type, ...common, specs };
  }
  const specs = speakerSpecs(row.specs);
  return specs && { type, ...common, specs };
}

type Row = Record<string, unknown>;
type DacSpecs = Extract<CatalogEntryInput, { type: 'dac' }>['specs'];
type AmplifierSpecs = Extract<CatalogEntryInput, { type: 'amplifier' }>['specs'];
type SpeakerSpecs = Extract<CatalogEntryInput, { type: 'speaker' }>['specs'];

const ENTRY_KEYS = new Set(['type', 'brand', 'model', 'price', 'currency', 'releaseYear', 'specs']);
const CURRENCY = /^[A-Z]{3}$/;
const DAC_INPUT_SET = new Set<string>(DAC_INPUTS);
const DAC_OUTPUT_SET = new Set<string>(DAC_OUTPUTS);
const DSD_RATE_SET = new Set<string>(DSD_RATES);
const AMPLIFIER_CLASS_SET = new Set<string>(AMPLIFIER_CLASSES);
const SPEAKER_DESIGN_SET = new Set<string>(SPEAKER_DESIGNS);

function isPlainObject(value: unknown): value is Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Exactly the keys of `allowed`, each an own property (strict objects; JSON.parse makes only own keys). */
function hasExactKeys(value: Row, allowed: readonly string[]): boolean {
  let keys = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !allowed.includes(key)) return false;
    keys += 1;
  }
  return keys === allowed.length;
}

function trimmedText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length >= 1 && trimmed.length <= max ? trimmed : undefined;
}

/** zod's multipleOf(0.01) for floats (floatSafeRemainder in zod/v4/core/util). */
function isWholeCents(price: number): boolean {
  const ratio = price / 0.01;
  return Math.abs(ratio - Math.round(ratio)) < 4 * Number.EPSILON * Math.max(Math.abs(ratio), 1);
}

const isPositive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;
const isPositiveInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/** A non-empty list of distinct words from `vocabulary`, copied (zod answers new arrays too). */
function distinctWords(value: unknown, vocabulary: ReadonlySet<string>): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  for (let i = 0; i < value.length; i++) {
    const word: unknown = value[i];
    if (typeof word !== 'string' || !vocabulary.has(word)) return undefined;
    for (let j = 0; j < i; j++) if (value[j] === word) return undefined;
  }
  return value.slice() as string[];
}

const DAC_KEYS = ['chip', 'maxSampleRateHz', 'maxBitDepth', 'dsd', 'inputs', 'outputs'];
function dacSpecs(value: unknown): DacSpecs | undefined {
  if (!isPlainObject(value) || !hasExactKeys(value, DAC_KEYS)) return undefined;
  const chip = trimmedText(value.chip, 120);
  const { maxSampleRateHz, maxBitDepth, dsd } = value;
  if (chip === undefined || !isPositiveInteger(maxSampleRateHz)) return undefined;
  if (maxBitDepth !== 16 && maxBitDepth !== 24 && maxBitDepth !== 32) return undefined;
  if (dsd !== null && (typeof dsd !== 'string' || !DSD_RATE_SET.has(dsd))) return undefined;
  const inputs = distinctWords(value.inputs, DAC_INPUT_SET);
  const outputs = distinctWords(value.outputs, DAC_OUTPUT_SET);
  if (!inputs || !outputs) return undefined;
  return { chip, maxSampleRateHz, maxBitDepth, dsd, inputs, outputs } as DacSpecs;
}

const AMPLIFIER_KEYS = ['powerPerChannelW', 'powerLoadOhms', 'amplifierClass', 'channels'];
function amplifierSpecs(value: unknown): AmplifierSpecs | undefined {
  if (!isPlainObject(value) || !hasExactKeys(value, AMPLIFIER_KEYS)) return undefined;
  const { powerPerChannelW, powerLoadOhms, amplifierClass, channels } = value;
  if (!isPositive(powerPerChannelW) || !isPositive(powerLoadOhms) || !isPositiveInteger(channels)) return undefined;
  if (typeof amplifierClass !== 'string' || !AMPLIFIER_CLASS_SET.has(amplifierClass)) return undefined;
  return { powerPerChannelW, powerLoadOhms, amplifierClass, channels } as AmplifierSpecs;
}

const SPEAKER_KEYS = ['sensitivityDb', 'impedanceOhms', 'frequencyLowHz', 'frequencyHighHz', 'design'];
function speakerSpecs(value: unknown): SpeakerSpecs | undefined {
  if (!isPlainObject(value) || !hasExactKeys(value, SPEAKER_KEYS)) return undefined;
  const { sensitivityDb, impedanceOhms, frequencyLowHz, frequencyHighHz, design } = value;
  if (typeof sensitivityDb !== 'number' || !Number.isFinite(sensitivityDb)) return undefined;
  if (!isPositive(impedanceOhms) || !isPositive(frequencyLowHz) || !isPositive(frequencyHighHz)) return undefined;
  if (frequencyLowHz >= frequencyHighHz) return undefined;
  if (typeof design !== 'string' || !SPEAKER_DESIGN_SET.has(design)) return undefined;
  return { sensitivityDb, impedanceOhms, frequencyLowHz, frequencyHighHz, design } as SpeakerSpecs;
}

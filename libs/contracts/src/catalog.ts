import { z } from 'zod';
import { rowIdSchema } from './row-id.js';

/** The product families the audio catalog knows about; `type` discriminates the specs shape. */
export const CATALOG_TYPES = ['dac', 'amplifier', 'speaker'] as const;
export const catalogTypeSchema = z.enum(CATALOG_TYPES);

/** Digital/analog inputs a DAC can accept. A fixed vocabulary so that filters and imports agree on spelling. */
export const DAC_INPUTS = ['usb', 'coaxial', 'optical', 'aes', 'i2s', 'bluetooth', 'ethernet', 'analog'] as const;
/** Analog outputs of a DAC (line level or headphone); the number is the jack size in mm, "headphone-xlr4" the 4-pin XLR. */
export const DAC_OUTPUTS = ['rca', 'xlr', 'headphone-6.35', 'headphone-4.4', 'headphone-3.5', 'headphone-xlr4', 'speaker'] as const;
/** Highest native DSD rate; DSD64 = 64 × 44.1 kHz (2.8224 MHz), each step doubles it. */
export const DSD_RATES = ['DSD64', 'DSD128', 'DSD256', 'DSD512', 'DSD1024'] as const;
export const AMPLIFIER_CLASSES = ['A', 'AB', 'D', 'G', 'H'] as const;
/** Loudspeakers only (headphones are not catalogued); "active" covers powered speakers and studio monitors. */
export const SPEAKER_DESIGNS = ['bookshelf', 'floorstanding', 'active', 'subwoofer'] as const;

/** A list in which each vocabulary word appears at most once (a repeated "usb" is an import typo, not two ports). */
const distinctList = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values))
    .min(1)
    .refine((list) => new Set(list).size === list.length, { message: 'Values must not repeat' });

const dacSpecsSchema = z.strictObject({
  /** Converter silicon as the maker names it, e.g. "ESS ES9038PRO", "R-2R ladder (discrete)", "FPGA (custom)". */
  chip: z.string().trim().min(1).max(120),
  /** Highest PCM sample rate accepted on any input, in Hz (768 kHz = 768000). */
  maxSampleRateHz: z.number().int().positive(),
  /** Highest PCM word length in bits. */
  maxBitDepth: z.literal([16, 24, 32]),
  /** Highest DSD rate played natively or via DoP; null when the DAC does not play DSD at all. */
  dsd: z.enum(DSD_RATES).nullable(),
  inputs: distinctList(DAC_INPUTS),
  outputs: distinctList(DAC_OUTPUTS),
});

const amplifierSpecsSchema = z.strictObject({
  /** Rated continuous power per channel in watts, all channels driven where the maker says so. */
  powerPerChannelW: z.number().positive(),
  /** The load in ohms the power above is rated into: 100 W into 4 Ω is not 100 W into 8 Ω. */
  powerLoadOhms: z.number().positive(),
  amplifierClass: z.enum(AMPLIFIER_CLASSES),
  channels: z.number().int().min(1),
});

const speakerSpecsSchema = z
  .strictObject({
    /** Sensitivity in dB SPL at 1 m, for 2.83 V or 1 W as the maker states it (identical into 8 Ω). */
    sensitivityDb: z.number(),
    /** Nominal impedance in ohms. */
    impedanceOhms: z.number().positive(),
    /** Frequency response limits in Hz, at the tolerance the maker publishes (usually ±3 dB). */
    frequencyLowHz: z.number().positive(),
    frequencyHighHz: z.number().positive(),
    design: z.enum(SPEAKER_DESIGNS),
  })
  .refine((specs) => specs.frequencyLowHz < specs.frequencyHighHz, {
    message: 'frequencyLowHz must be below frequencyHighHz',
    path: ['frequencyHighHz'],
  });

/** Earliest year accepted; the catalog covers hi-fi from its first mass-market era on. */
export const FIRST_RELEASE_YEAR = 1950;
/** Latest year accepted, evaluated once at load: announced products may carry next year's date. */
export const LAST_RELEASE_YEAR = new Date().getFullYear() + 1;

/**
 * Fields every entry shares. `price` is the launch MSRP in `currency` (for speakers, per pair when
 * sold in pairs), so it is never negative and has at most two decimals (whole cents).
 */
const commonFields = {
  brand: z.string().trim().min(1).max(80),
  model: z.string().trim().min(1).max(120),
  price: z.number().min(0).multipleOf(0.01),
  /** ISO 4217 alphabetic code, upper case. */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'Expected an ISO 4217 currency code such as "USD"')
    .default('USD'),
  releaseYear: z.number().int().min(FIRST_RELEASE_YEAR).max(LAST_RELEASE_YEAR),
};

const dacEntryInputSchema = z.strictObject({ type: z.literal('dac'), ...commonFields, specs: dacSpecsSchema });
const amplifierEntryInputSchema = z.strictObject({
  type: z.literal('amplifier'),
  ...commonFields,
  specs: amplifierSpecsSchema,
});
const speakerEntryInputSchema = z.strictObject({ type: z.literal('speaker'), ...commonFields, specs: speakerSpecsSchema });

/** Strict objects throughout: an unknown key in an import is almost always a typo, so it fails loudly. */
export const catalogEntryInputSchema = z.discriminatedUnion('type', [
  dacEntryInputSchema,
  amplifierEntryInputSchema,
  speakerEntryInputSchema,
]);

/** Database ids are positive serials (int4). */
const idField = { id: rowIdSchema() };

/** A stored entry as returned by the API: the input plus its database id. */
export const catalogEntrySchema = z.discriminatedUnion('type', [
  dacEntryInputSchema.extend(idField),
  amplifierEntryInputSchema.extend(idField),
  speakerEntryInputSchema.extend(idField),
]);

export type CatalogType = (typeof CATALOG_TYPES)[number];
/** A parsed (validated) entry to create; `currency` is always filled in (omitted on the wire means USD). */
export type CatalogEntryInput = z.infer<typeof catalogEntryInputSchema>;
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

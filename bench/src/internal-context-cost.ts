import { signContext, verifyContext, type InternalContext } from '@acs/auth';

// The gateway signs and a service verifies one internal context per request (libs/auth,
// internal-context.ts). With one key per upstream the gateway signs under five keys in turn, and a
// service in a key rotation may hold two; this prints what each costs per call, in interleaved
// rounds so that the machine's load falls on all of them alike. Prints figures, asserts nothing.
//   npm run build --silent && node bench/dist/internal-context-cost.js [rounds] [calls per round]

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 200_000);
const UPSTREAMS = ['keys', 'identity', 'catalog', 'device', 'billing'] as const;
const keyOf = (name: string): string => `bench-internal-key-${name}-0123456789abcdefghij`;
const context: Omit<InternalContext, 'expiresAt'> = {
  requestId: '7f1c2a4e-93b1-4d0e-8f5a-0c6d2e1b9a77',
  keyId: 'b1f7f3f2-3c1e-4a57-9a0e-4f4f0b2a6c11',
  scopes: ['read:devices', 'write:devices'],
  userId: 123456,
  role: 2,
  planType: 1,
  clientIp: '203.0.113.7',
};
const url = '/api/Dac?brand=Topping&pageSize=20&page=3';

const signed = signContext(keyOf('catalog'), 'catalog', 'GET', url, context);
const verifyWith = (secrets: string | readonly string[]) => () =>
  verifyContext(secrets as string, 'catalog', 'GET', url, signed.context, signed.signature);

const cases: Record<string, () => unknown> = {
  'sign, one key': () => signContext(keyOf('catalog'), 'catalog', 'GET', url, context),
  'sign, five keys in turn': (() => {
    let i = 0;
    return () => {
      const name = UPSTREAMS[i++ % UPSTREAMS.length]!;
      return signContext(keyOf(name), name, 'GET', url, context);
    };
  })(),
  'verify, one key': verifyWith(keyOf('catalog')),
};
// Two keys (the new one and the one being replaced) exist only where verifyContext takes a list.
if (process.argv.includes('--rotation')) {
  cases['verify, current of two keys'] = verifyWith([keyOf('catalog'), keyOf('old')]);
  cases['verify, previous of two keys'] = verifyWith([keyOf('new'), keyOf('catalog')]);
}

function microsPerCall(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

for (const fn of Object.values(cases)) microsPerCall(fn); // warm-up: every case compiled before the rounds
const results = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, fn] of Object.entries(cases)) results.get(name)!.push(microsPerCall(fn));
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, values] of results) {
  console.log(`${name.padEnd(30)} median ${median(values).toFixed(2)} µs  (rounds ${values.map((v) => v.toFixed(2)).join(' ')})`);
}

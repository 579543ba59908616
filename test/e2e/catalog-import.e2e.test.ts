import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { catalogPageSchema } from '@acs/contracts';
import { SPEC_ERRORS } from '@acs/errors';
import { setUserRole } from '@acs/identity-service';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { appKey, bearer, json, newUser, type Auth, type User } from './actors.js';

// Issue 6, the admin import, through the gateway.
let sut: SystemUnderTest;
let app: Auth;
let writer: Auth; // write:devices
let reader: Auth; // read:devices only
let admin: User;
let subscriber: User;

beforeAll(async () => {
  sut = await startSystemUnderTest();
  app = await appKey(sut, ['auth:register', 'auth:login']);
  writer = await appKey(sut, ['write:devices']);
  reader = await appKey(sut, ['read:devices']);
  admin = await newUser(sut, app);
  await setUserRole(sut.system.identity.deps, admin.email, 2);
  subscriber = await newUser(sut, app); // on a trial: role 1
}, 60_000);
afterAll(async () => sut?.stop());

const brand = () => `Brand${randomBytes(4).toString('hex')}`;
const speaker = (b: string, model: string, price = 499) => ({
  type: 'speaker',
  brand: b,
  model,
  price,
  releaseYear: 2024,
  specs: { sensitivityDb: 87, impedanceOhms: 8, frequencyLowHz: 45, frequencyHighHz: 25000, design: 'bookshelf' },
});
const importAs = (user: User, key: Auth, body: unknown, query = '') =>
  sut.call('POST', `/api/Dac/import${query}`, key, bearer(user.token, json(body)));
const byBrand = async (b: string) =>
  catalogPageSchema.parse(await (await sut.call('GET', `/api/Dac?brand=${b}&pageSize=100`, reader)).json());

describe('catalog import through the gateway', () => {
  it('an Admin imports; the entries are visible at once; a second import updates', async () => {
    const b = brand();
    const res = await importAs(admin, writer, [speaker(b, 'One'), speaker(b, 'Two')]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ inserted: 2, updated: 0, total: 2 });
    expect((await byBrand(b)).items.map((i) => i.model).sort()).toEqual(['One', 'Two']);
    const again = await importAs(admin, writer, { items: [speaker(b, 'one', 599), speaker(b, 'Three')] });
    expect(await again.json()).toEqual({ inserted: 1, updated: 1, total: 2 });
    const page = await byBrand(b);
    expect(page.total).toBe(3);
    expect(page.items.find((i) => i.model.toLowerCase() === 'one')!.price).toBe(599);
  });

  it('a batch with one bad row writes nothing and names the row', async () => {
    const b = brand();
    const bad = { ...speaker(b, 'Broken'), releaseYear: 'last year' };
    const res = await importAs(admin, writer, [speaker(b, 'Fine'), bad]);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { path: string }[] };
    expect(body.details.some((d) => d.path.startsWith('items[1]'))).toBe(true);
    expect((await byBrand(b)).total).toBe(0);
  });

  it('a dry run answers the counts and writes nothing', async () => {
    const b = brand();
    const res = await importAs(admin, writer, [speaker(b, 'Dry')], '?dryRun=true');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ inserted: 1, updated: 0, total: 1 });
    expect((await byBrand(b)).total).toBe(0);
  });

  it('refuses a Subscriber (spec 403, user) and a read:devices key (spec 403, scope)', async () => {
    const b = brand();
    const asSubscriber = await importAs(subscriber, writer, [speaker(b, 'X')]);
    expect(asSubscriber.status).toBe(403);
    expect(await asSubscriber.json()).toMatchObject({
      error: SPEC_ERRORS.insufficientUser.error,
      message: SPEC_ERRORS.insufficientUser.message,
    });
    const asReader = await importAs(admin, reader, [speaker(b, 'X')]);
    expect(asReader.status).toBe(403);
    expect(await asReader.json()).toMatchObject({
      error: SPEC_ERRORS.insufficientScope.error,
      message: SPEC_ERRORS.insufficientScope.message,
    });
    expect((await byBrand(b)).total).toBe(0);
  });
});

describe('conditional catalog reads through the gateway (issue 18)', () => {
  it('passes If-None-Match, 304 with no body, ETag and Cache-Control through untouched; an import moves the tag', async () => {
    const b = brand();
    await importAs(admin, writer, [speaker(b, 'Tagged')]);
    const path = `/api/Dac?brand=${b}&pageSize=5`;
    const first = await sut.call('GET', path, reader);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+-[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, max-age=60');
    expect(catalogPageSchema.parse(await first.json()).nextCursor).toBeNull();

    const notModified = await sut.call('GET', path, reader, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('cache-control')).toBe('private, max-age=60');

    await importAs(admin, writer, [speaker(b, 'Second')]);
    const changed = await sut.call('GET', path, reader, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(
      catalogPageSchema
        .parse(await changed.json())
        .items.map((i) => i.model)
        .sort(),
    ).toEqual(['Second', 'Tagged']);
  });

  it('follows nextCursor through the gateway', async () => {
    const b = brand();
    await importAs(admin, writer, [speaker(b, 'A'), speaker(b, 'B'), speaker(b, 'C')]);
    const first = catalogPageSchema.parse(await (await sut.call('GET', `/api/Dac?brand=${b}&pageSize=2`, reader)).json());
    expect(first.nextCursor).not.toBeNull();
    const rest = catalogPageSchema.parse(await (await sut.call('GET', `/api/Dac?cursor=${first.nextCursor}&pageSize=2`, reader)).json());
    expect([...first.items, ...rest.items].map((i) => i.model).sort()).toEqual(['A', 'B', 'C']);
    expect(rest.nextCursor).toBeNull();
    const refused = await sut.call('GET', `/api/Dac?cursor=${first.nextCursor}&brand=Other`, reader);
    expect(refused.status).toBe(400);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { hashOf, optOutKeysOf } from '@lr/domain';
import { OptOuts, SaleLedger } from '@lr/persistence';
import { freshPerson, mediumDataSource } from '../../../../test/support/medium-world';
import { ImportFileError, importOptOuts } from './opt-out-import';
import { optOutRequestsOf } from '../../../../test/support/stored-rows';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

/** `ops optout import` on the real PostgreSQL: one request per line, a report line per line, the same file twice suppresses nothing new. */
describe('optout import (medium)', () => {
  let ds: DataSource;
  let dir: string;

  beforeAll(async () => {
    ds = await mediumDataSource(4);
    dir = await mkdtemp(join(tmpdir(), 'optout-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await ds?.destroy();
  });

  const file = async (name: string, text: string) => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  it('records each good line on its own, reports each bad one by line and reason without its values; a second import suppresses nothing new', async () => {
    const [a, b, c] = [freshPerson(), freshPerson(), freshPerson()];
    const path = await file(
      'requests.csv',
      [
        'email,phone,hashed_email,hashed_phone,received_at,reference',
        `${a.personal!.email},,,,2026-11-20T10:00:00Z,"letter, 42"`,
        `,,,${hashOf('phone', b.personal!.phone!)},,`,
        `no-at-sign,,,,,`,
        `${c.personal!.email},,,,2999-01-01,`,
        `${c.personal!.email},(512) 555`,
        `,,,,,`,
        '',
      ].join('\r\n'),
    );
    const progress: Array<[number, number]> = [];
    const optOuts = new OptOuts(ds);
    const report = await importOptOuts(
      path,
      optOuts,
      new Date('2026-11-26T12:00:00Z'),
      (d, t) => progress.push([d, t]),
      'import-test',
      TEST_PERSON_KEY_SECRET,
    );

    expect(report).toEqual([
      { line: 2, outcome: 'recorded', suppressed: 1, notices: 0 },
      { line: 3, outcome: 'recorded', suppressed: 1, notices: 0 },
      { line: 4, outcome: 'error', error: 'email cannot be normalized (an address with @ and a domain)' },
      { line: 5, outcome: 'error', error: 'received_at is in the future' },
      { line: 6, outcome: 'error', error: '2 fields where the header has 6' },
      { line: 7, outcome: 'error', error: 'name the person: email, phone, hashed_email or hashed_phone' },
    ]);
    expect(JSON.stringify(report)).not.toContain(c.personal!.email);
    expect(progress.at(-1)).toEqual([6, 6]);
    // Suppressed as the searches and submits see it: the sale facts.
    const suppressed = async (keys: ReturnType<typeof optOutKeysOf>) =>
      (await new SaleLedger(ds).saleFacts({ groupId: null, slots: [], keys: [], offerIds: [], optOutKeys: keys })).suppressed;
    expect(await suppressed(optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: a.personal!.email }))).toBe(true);
    expect(await suppressed(optOutKeysOf(TEST_PERSON_KEY_SECRET, { phone: `+1${b.personal!.phone}` }))).toBe(true);
    expect(await suppressed(optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: c.personal!.email }))).toBe(false);
    const [request] = await optOutRequestsOf(ds, optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: a.personal!.email })[0].hash);
    expect(request).toEqual({
      received_at: new Date('2026-11-20T10:00:00Z'),
      due_at: new Date('2026-12-04T10:00:00Z'),
      reference: 'letter, 42',
      source: 'operator',
    });

    const again = await importOptOuts(
      path,
      optOuts,
      new Date('2026-11-26T12:00:00Z'),
      () => undefined,
      'import-test',
      TEST_PERSON_KEY_SECRET,
    );
    expect(again.filter((l) => l.outcome === 'recorded')).toEqual([
      { line: 2, outcome: 'recorded', suppressed: 0, notices: 0 },
      { line: 3, outcome: 'recorded', suppressed: 0, notices: 0 },
    ]);
  });

  it('refuses a file whose header names a column it does not read, or whose quote is never closed, naming the line', async () => {
    await expect(
      importOptOuts(
        await file('typo.csv', 'emial,phone\nx@example.com,\n'),
        new OptOuts(ds),
        new Date(),
        () => undefined,
        'import-test',
        TEST_PERSON_KEY_SECRET,
      ),
    ).rejects.toThrow(
      new ImportFileError('line 1: unknown column "emial"; columns: email, phone, hashed_email, hashed_phone, received_at, reference'),
    );
    await expect(
      importOptOuts(
        await file('open.csv', 'email\n"x@example.com\n'),
        new OptOuts(ds),
        new Date(),
        () => undefined,
        'import-test',
        TEST_PERSON_KEY_SECRET,
      ),
    ).rejects.toThrow('line 2: a quoted field is not closed');
  });
});

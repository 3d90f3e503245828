import { DataSource } from 'typeorm';
import { allMigrations, dataSourceOptions } from '@lr/persistence';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/** The hand-written migrations build the schema of the data model. */
describe('schema', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = new DataSource({
      ...dataSourceOptions({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 }),
      migrations: allMigrations(TEST_PERSON_KEY_SECRET),
    });
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('has every migration applied', async () => {
    const rows: Array<{ name: string }> = await ds.query('SELECT name FROM schema_migrations ORDER BY id');
    expect(rows.map((r) => r.name)).toEqual(allMigrations(TEST_PERSON_KEY_SECRET).map((m) => new m().name));
    expect(await ds.showMigrations()).toBe(false);
  });

  it('has the tables of the data model', async () => {
    const rows: Array<{ table_name: string }> = await ds.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'affiliates',
        'schools',
        'partners',
        'offers',
        'programs',
        'questions',
        'caps',
        'campaigns',
        'campaign_offers',
        'api_keys',
        'searches',
        'results',
        'leads',
        'consent_evidence',
        'sales',
        'cap_usage',
        'dedupe_keys',
        'delivery_attempts',
        'processed_messages',
        'search_partner_calls',
        'consent_ledger',
        'consent_seals',
      ]),
    );
  });
});

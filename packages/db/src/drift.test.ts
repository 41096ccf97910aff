import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSnapshot, executeScript, SCHEMA_PATH, sqlForSchema } from './schema-oracle';
import { createTestDatabase, type TestDatabase } from './testing';

function difference(expected: string[], actual: string[]) {
  return {
    missingFromMigrations: expected.filter((line) => !actual.includes(line)),
    notInSchema: actual.filter((line) => !expected.includes(line)),
  };
}

describe('schema drift', () => {
  const databases: TestDatabase[] = [];
  let schema: string;
  let migrated: string[];

  beforeAll(async () => {
    schema = await readFile(SCHEMA_PATH, 'utf8');
    const fromMigrations = await createTestDatabase();
    databases.push(fromMigrations);
    migrated = await catalogSnapshot(fromMigrations.url);
  });
  afterAll(() => Promise.all(databases.map((database) => database.drop())));

  async function snapshotOfSchema(text: string): Promise<string[]> {
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    await executeScript(database.url, await sqlForSchema(text, database.url));
    return catalogSnapshot(database.url);
  }

  it('the committed migrations build exactly the database schema.prisma describes', async () => {
    const fromSchema = await snapshotOfSchema(schema);
    expect(migrated.length).toBeGreaterThan(50);
    // On failure: write a migration that turns the left side into the right (see README, "Database and migrations").
    expect(difference(fromSchema, migrated)).toEqual({ missingFromMigrations: [], notInSchema: [] });
  });

  it('detects a schema change that has no migration', async () => {
    const changed = schema.replace(/model Voice \{/, 'model Voice {\n  accent String?');
    expect(changed).not.toBe(schema);
    const fromChanged = await snapshotOfSchema(changed);
    expect(difference(fromChanged, migrated).missingFromMigrations).toEqual([
      expect.stringMatching(/^column voices\.accent text/),
    ]);
  });
});

export const env = {
  databaseUrl: process.env.DATABASE_URL,
  /** A server-level URL (any database) where tests may create and drop their own databases. */
  testAdminUrl: process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
};

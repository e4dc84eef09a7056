// The version a deployment reports (GET /__tiercache/health): package.json's, kept in step by
// test/shared/config/version.test.ts.

export const VERSION = '0.1.0';

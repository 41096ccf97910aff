export { setup, teardown } from '@voice/dev/vitest-temporal';

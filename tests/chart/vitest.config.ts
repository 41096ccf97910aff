import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // The first run on a machine builds helm and kubeconform from source (a few minutes).
    hookTimeout: 1_200_000,
  },
});

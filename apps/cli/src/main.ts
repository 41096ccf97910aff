import { isAppError } from '@voice/core';
import { createProgram } from './program';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  // Domain errors are the user's to fix: print the message, not a stack.
  console.error(
    `error: ${isAppError(error) ? error.message : error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}

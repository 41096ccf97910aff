import { createProgram } from './program';

try {
  await createProgram().parseAsync(process.argv);
} catch (error) {
  // Errors are the user's to fix (a domain error, a missing setting): print the message, not a stack.
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

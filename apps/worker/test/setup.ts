import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes are logged at INFO; tests only want warnings and errors. The setup runs for every
// test file, and the files share a process: the runtime is installed once.
const INSTALLED = Symbol.for('voice.test.temporal-runtime');
const marks = globalThis as { [INSTALLED]?: true };
if (!marks[INSTALLED]) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  marks[INSTALLED] = true;
}

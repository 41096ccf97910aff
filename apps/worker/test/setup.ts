import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes are logged at INFO; tests only want warnings and errors.
Runtime.install({ logger: new DefaultLogger('WARN') });

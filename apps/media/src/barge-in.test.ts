import { describeBargeIn } from './barge-in-set';

// One run after the other: each keeps its calls' audio and their noise suppression busy in real time,
// and side by side (in two files) the second run's stop latency measured the two runs' contention.
describeBargeIn(false);
describeBargeIn(true);

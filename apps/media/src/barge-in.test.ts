import { describeBargeIn } from './barge-in-set';

describeBargeIn(false);

import { describeBargeIn } from './barge-in-set';

describeBargeIn(true);

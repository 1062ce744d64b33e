// One replication's class whole: the state (state.ts) with the methods of each concept on its one prototype. The
// methods are copied onto the prototype here, when this module loads, before any replication is made; one class and
// one prototype, not a chain of subclasses, so the JIT sees the same shapes and call targets as for a single class.
import { type ArrivalMethods, arrivalMethods } from './arrivals.ts';
import { type CalendarMethods, calendarMethods } from './calendar.ts';
import { type CapacityMethods, capacityMethods } from './capacity.ts';
import { type FlowMethods, flowMethods } from './flow.ts';
import { type MeasureMethods, measureMethods } from './measures.ts';
import { Replication } from './state.ts';

declare module './state.ts' {
  // The class's type has the methods put on its prototype below.
  interface Replication extends CalendarMethods, ArrivalMethods, FlowMethods, CapacityMethods, MeasureMethods {}
}

Object.assign(Replication.prototype, calendarMethods, arrivalMethods, flowMethods, capacityMethods, measureMethods);

export { Replication };

// The engine's numeric layout, shared by the Replication class (engine/) and the code it generates per model
// (engineCode.ts): event kinds and keys, entity states, and the offsets of a measure's numbers in measureState.

// Event kinds double as tie-break priorities (lower runs first at the same time).
export const EVENT_SHIFT = 0;
export const EVENT_SERVICE_END = 1;
export const EVENT_DELAY_END = 2;
export const EVENT_RENEGE = 3;
export const EVENT_ARRIVAL = 4;
export const EVENT_FAILURE = 5;
export const EVENT_REPAIR = 6;
export const PRIORITY_SCALE = 2 ** 44; // sequence numbers stay below 2^44, so priority * 2^44 + sequence is exact in a double
/** the event kind is the key's multiple of 2^44: no separate kind array moves through the heap */
export const INVERSE_PRIORITY_SCALE = 2 ** -44;

// Offsets in a measure's stride of Replication.measureState: its parameters, then its accumulators.
export const MEASURE_WINDOW_START = 0;
export const MEASURE_WINDOW_END = 1;
export const MEASURE_TIME_FACTOR = 2;
export const MEASURE_KIND = 3;
/** 1 for time_between measures that keep a sketch or count over a threshold (the hot path skips the others) */
export const MEASURE_DETAILED = 4;
export const MEASURE_SUM = 5;
/** observations (entities for time_between, events for count) */
export const MEASURE_OBSERVATIONS = 6;
/** time-weighted busy servers (utilisation) or queue length (queue_length) */
export const MEASURE_AREA = 7;
export const MEASURE_CAPACITY_AREA = 8;
/** cost discounting: discounted counts, busy or entity time, and capacity time */
export const MEASURE_DISCOUNTED = 9;
export const MEASURE_DISCOUNTED_CAPACITY = 10;
export const MEASURE_STRIDE = 11;

export const STATE_FREE = 0;
export const STATE_WAITING = 1;
export const STATE_IN_SERVICE = 2;
export const STATE_IN_DELAY = 3;
export const STATE_MOVING = 4;

// WorldSpec 1.0.0: a care-pathway world for discrete-event simulation (spec: WorldSpec and run; Versioning).
// ResourceSpec (experimental) describes one resource of a world on its own, so authoring tools can draft resources
// separately; a WorldSpec embeds the same shape in `resources`.
// Field lists are not shown in the spec; the shapes below are ours and are documented in docs/simulation.md.
import { type Static, Type } from 'typebox';
import { Name } from './common.ts';

export const WORLD_SPEC_VERSION = '1.0.0';
export const RESOURCE_SPEC_VERSION = '0.1.0-experimental';

const Id = Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'lower-case identifier (letters, digits, underscore)' });
const Text = (maxLength = 2000) => Type.String({ minLength: 1, maxLength });
/** A world's name and every label in it: one line, no control characters or bidirectional overrides (domain/names.ts). */
const Label = (maxLength: number) => Name({ minLength: 1, maxLength });
/** The name people know a step or an arrival stream by, shown everywhere in place of its id (optional: the id read as words otherwise). */
const StepLabel = Type.Optional(Name({ minLength: 1, maxLength: 200, description: 'the name shown in place of the id (e.g. "GP appointment")' }));

// A numeric parameter is either a literal number or the name of a setting, so variants can change it.
export const Parameter = Type.Union([Type.Number(), Type.Object({ setting: Id }, { additionalProperties: false })], {
  description: 'a number in the unit the field expects, or {setting: name} to use a setting (converted from its unit)',
});

export const TIME_UNITS = ['minutes', 'hours', 'days'] as const;
export const TimeUnit = Type.Union([Type.Literal('minutes'), Type.Literal('hours'), Type.Literal('days')]);

export const SettingSource = Type.Union([
  Type.Object({ kind: Type.Literal('user_declared'), note: Type.Optional(Text()) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('literature'), reference: Text(1000), note: Type.Optional(Text()) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('assumption'), rationale: Text() }, { additionalProperties: false }),
]);

export const Setting = Type.Object(
  {
    value: Type.Number(),
    unit: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'minutes|hours|days, per_minute|per_hour|per_day, probability, count, fraction, or a currency code such as GBP',
    }),
    source: SettingSource,
    description: Type.Optional(Text()),
  },
  { additionalProperties: false },
);

export const Distribution = Type.Union([
  Type.Object({ dist: Type.Literal('fixed'), value: Parameter }, { additionalProperties: false }),
  Type.Object({ dist: Type.Literal('exponential'), mean: Parameter }, { additionalProperties: false }),
  Type.Object({ dist: Type.Literal('uniform'), min: Parameter, max: Parameter }, { additionalProperties: false }),
  Type.Object({ dist: Type.Literal('triangular'), min: Parameter, mode: Parameter, max: Parameter }, { additionalProperties: false }),
  Type.Object({ dist: Type.Literal('lognormal'), mean: Parameter, sd: Parameter }, { additionalProperties: false }),
  Type.Object({ dist: Type.Literal('gamma'), shape: Parameter, scale: Parameter }, { additionalProperties: false }),
  Type.Object(
    {
      dist: Type.Literal('normal'),
      mean: Parameter,
      sd: Parameter,
      min: Type.Optional(Parameter),
      max: Type.Optional(Parameter),
      bounds: Type.Optional(
        Type.Union([Type.Literal('truncate'), Type.Literal('clamp')], {
          description:
            'truncate (default): draws follow the normal conditioned on [min, max]; clamp: a draw below min counts as min and one above max as max (a floor, as published models write max(min, normal))',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'normal with this mean and sd, kept within [min, max]: min defaults to 0 (a duration is never negative), max to no bound',
    },
  ),
  Type.Object(
    {
      dist: Type.Literal('empirical'),
      values: Type.Array(Type.Number({ minimum: 0 }), { minItems: 1, maxItems: 10000 }),
      weights: Type.Optional(Type.Array(Type.Number({ minimum: 0 }), { minItems: 1, maxItems: 10000 })),
    },
    { additionalProperties: false },
  ),
]);

export const QueueLimit = Type.Object(
  {
    max_waiting: Parameter,
    balk_probability: Type.Optional(Parameter),
    to: Type.Optional(Id),
  },
  {
    additionalProperties: false,
    description:
      'an entity that finds max_waiting or more waiting balks with balk_probability (default 1: blocking/loss, an M/M/c/K queue with K = c + max_waiting) and goes to `to` (default: it leaves); at a seize step it is turned away without the unit (max_waiting 0: a pure loss system, Erlang B); its moment is `turned_away`',
  },
);

export const BatchSizes = Type.Object(
  {
    values: Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), { minItems: 1, maxItems: 1000 }),
    weights: Type.Optional(Type.Array(Type.Number({ minimum: 0 }), { minItems: 1, maxItems: 1000 })),
  },
  { additionalProperties: false, description: 'batch size of each arrival event, drawn from these values (equal weights when none are given)' },
);

export const AttributeAssignment = Type.Object(
  {
    name: Id,
    values: Type.Array(
      Type.Object({ value: Type.Union([Type.String({ maxLength: 64 }), Type.Number()]), probability: Parameter }, { additionalProperties: false }),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

const arrivalCommon = {
  id: Id,
  label: StepLabel,
  to_step: Id,
  attributes: Type.Optional(Type.Array(AttributeAssignment, { maxItems: 20 })),
};

export const Arrival = Type.Union([
  Type.Object({ ...arrivalCommon, kind: Type.Literal('poisson'), rate: Parameter, batch_sizes: Type.Optional(BatchSizes) }, { additionalProperties: false }),
  Type.Object(
    { ...arrivalCommon, kind: Type.Literal('renewal'), interarrival: Distribution, batch_sizes: Type.Optional(BatchSizes) },
    {
      additionalProperties: false,
      description: 'arrivals separated by independent draws of `interarrival` (world time unit), the first one draw after time 0',
    },
  ),
  Type.Object(
    {
      ...arrivalCommon,
      kind: Type.Literal('scheduled'),
      times: Type.Array(Type.Number({ minimum: 0 }), { minItems: 1, maxItems: 10000, description: 'arrival times in the world time unit, within one period' }),
      period: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'repeat the times every period (world time unit)' })),
      batch_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...arrivalCommon,
      kind: Type.Literal('rate_table'),
      rates_per_hour: Type.Array(Type.Array(Type.Number({ minimum: 0 }), { minItems: 24, maxItems: 24 }), {
        minItems: 1,
        maxItems: 7,
        description:
          '7 rows (Monday..Sunday) x 24 hours of arrivals per hour, or 1 row: a one-day pattern that every day repeats; time 0 is `start` (default Monday 00:00)',
      }),
      start: Type.Optional(
        Type.Object(
          {
            weekday: Type.Optional(Type.Integer({ minimum: 0, maximum: 6, description: 'the weekday row time 0 falls in (0 = Monday, default)' })),
            hour: Type.Optional(
              Type.Integer({ minimum: 0, maximum: 23, description: 'the hour of the day at time 0 (6 = the world starts at 06:00), default 0' }),
            ),
          },
          { additionalProperties: false, description: "where time 0 falls in the table (the rate table's clock; shifts keep Monday 00:00)" },
        ),
      ),
      scale: Type.Optional(Parameter),
      growth_per_year: Type.Optional(
        Type.Union([Type.Number({ minimum: -0.99, maximum: 10 }), Type.Object({ setting: Id }, { additionalProperties: false })], {
          description:
            'trend: every rate grows by this fraction a year, compounded (0.03 = +3% a year; negative shrinks), from time 0; applied hour by hour at the middle of each hour',
        }),
      ),
      holidays: Type.Optional(
        Type.Array(
          Type.Object(
            {
              day: Type.Integer({
                minimum: 0,
                description:
                  'day number from time 0 (day 0 is the calendar day time 0 falls in: the Monday that starts the world, unless `start` says otherwise)',
              }),
              rates_as: Type.Optional(
                Type.Integer({ minimum: 0, maximum: 6, description: 'the weekday row whose rates apply that day (0 = Monday; default 6 = Sunday)' }),
              ),
            },
            { additionalProperties: false },
          ),
          { maxItems: 1000, description: 'days whose arrivals follow another weekday row, e.g. bank holidays as Sundays' },
        ),
      ),
    },
    { additionalProperties: false },
  ),
]);

export const Shift = Type.Object(
  {
    days: Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { minItems: 1, maxItems: 7, description: '0 = Monday' }),
    start_hour: Type.Number({ minimum: 0, maximum: 23.99, description: 'hour of the day the shift starts; whole minutes allowed (8.5 = 08:30)' }),
    end_hour: Type.Number({ minimum: 0.01, maximum: 24, description: 'hour of the day the shift ends; whole minutes allowed (17.25 = 17:15)' }),
    capacity: Parameter,
  },
  { additionalProperties: false },
);

export const Breakdowns = Type.Object(
  {
    time_to_failure: Distribution,
    repair: Distribution,
    clock: Type.Optional(
      Type.Union([Type.Literal('calendar'), Type.Literal('busy')], {
        description: 'calendar (default): each server fails after time_to_failure of elapsed time, busy or idle; busy: only time spent serving counts',
      }),
    ),
    interrupted: Type.Optional(
      Type.Union([Type.Literal('resume'), Type.Literal('restart')], {
        description:
          'an entity whose server fails waits first in the queue and resumes its remaining service (resume, default) or draws a new duration (restart)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'unplanned unavailability: each server of the resource fails independently after a time_to_failure draw and is repaired after a repair draw (world time unit); a server under repair is unavailable',
  },
);

export const ResourceSpec = Type.Object(
  {
    id: Id,
    label: Type.Optional(Label(200)),
    capacity: Parameter,
    breakdowns: Type.Optional(Breakdowns),
    shifts: Type.Optional(
      Type.Array(Shift, {
        minItems: 1,
        maxItems: 100,
        description: 'when given, capacity in each hour is the sum of the shifts covering it (0 outside shifts)',
      }),
    ),
  },
  {
    $id: 'https://crucible.dev/schemas/ResourceSpec/0.1.0-experimental',
    additionalProperties: false,
    description: 'ResourceSpec (experimental): a resource of a world',
  },
);

const AttributeValue = Type.Union([Type.String({ maxLength: 64 }), Type.Number()]);

export const Condition = Type.Object(
  {
    attribute: Id,
    op: Type.Union([
      Type.Literal('eq'),
      Type.Literal('ne'),
      Type.Literal('lt'),
      Type.Literal('le'),
      Type.Literal('gt'),
      Type.Literal('ge'),
      Type.Literal('in'),
    ]),
    value: Type.Union([AttributeValue, Type.Array(AttributeValue, { minItems: 1, maxItems: 50 })], {
      description: 'a value, or a list for `in`; lt/le/gt/ge compare numbers',
    }),
  },
  { additionalProperties: false, description: 'holds when the entity has the attribute and it compares true (an unassigned attribute fails every condition)' },
);

export const StepRef = Type.Object(
  {
    step: Id,
    at: Type.Union([Type.Literal('enter'), Type.Literal('start'), Type.Literal('end'), Type.Literal('renege'), Type.Literal('turned_away')], {
      description: 'turned_away: a service or seize step with a queue_limit turned the entity away (count it to count those turned away at the step)',
    }),
  },
  { additionalProperties: false },
);

/** One step moment, or several: a list measures a stream (any of its moments: the time to whichever exit an entity takes; every exit counted). */
export const StepRefs = Type.Union([StepRef, Type.Array(StepRef, { minItems: 1, maxItems: 50 })], {
  description:
    'a step moment, or a list of them: from the latest listed `from` moment passed to the first listed `to` moment reached; a count counts each listed moment',
});

export const Step = Type.Union([
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('service'),
      resource: Id,
      duration: Distribution,
      queue: Type.Optional(Type.Union([Type.Literal('fifo'), Type.Literal('priority')])),
      priority_attribute: Type.Optional(Id),
      renege_after: Type.Optional(Parameter),
      renege_to: Type.Optional(Id),
      patience: Type.Optional(Distribution),
      preempt: Type.Optional(
        Type.Union([Type.Literal('resume'), Type.Literal('restart')], {
          description:
            'priority queues only: an arrival with a lower priority value than an entity in service at this resource takes its server; the displaced entity waits at the front of its priority and later resumes its remaining time (resume) or starts a new duration (restart)',
        }),
      ),
      queue_limit: Type.Optional(QueueLimit),
      batch: Type.Optional(
        Type.Object(
          {
            max_size: Type.Integer({ minimum: 1, maximum: 1000, description: 'a free server takes up to this many waiting entities together' }),
            min_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'and starts only when at least this many wait (default 1)' })),
          },
          {
            additionalProperties: false,
            description:
              'batch service: one duration draw serves the whole batch (e.g. a group session, a sterilisation load); the resource serves only this step',
          },
        ),
      ),
      next: Id,
    },
    { additionalProperties: false },
  ),
  Type.Object({ id: Id, label: StepLabel, kind: Type.Literal('delay'), duration: Distribution, next: Id }, { additionalProperties: false }),
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('branch'),
      by: Type.Literal('probability'),
      options: Type.Array(Type.Object({ probability: Parameter, next: Id }, { additionalProperties: false }), { minItems: 1, maxItems: 50 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('branch'),
      by: Type.Literal('attribute'),
      attribute: Id,
      options: Type.Array(Type.Object({ equals: Type.Union([Type.String({ maxLength: 64 }), Type.Number()]), next: Id }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 50,
      }),
      otherwise: Id,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('branch'),
      by: Type.Literal('shortest_queue'),
      options: Type.Array(Type.Object({ next: Id }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 50,
        description: 'service steps; the entity joins the one whose resource has the fewest entities waiting and in service (ties at random)',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('branch'),
      by: Type.Literal('rules'),
      options: Type.Array(
        Type.Object({ when: Type.Array(Condition, { minItems: 1, maxItems: 20, description: 'all must hold' }), next: Id }, { additionalProperties: false }),
        {
          minItems: 1,
          maxItems: 50,
          description: 'the first option whose conditions all hold is taken',
        },
      ),
      otherwise: Id,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      id: Id,
      label: StepLabel,
      kind: Type.Literal('assign'),
      attribute: Id,
      values: Type.Array(Type.Object({ value: AttributeValue, probability: Parameter }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: 50,
        description: 'the new value, drawn with these probabilities (one value with probability 1 sets it)',
      }),
      next: Id,
    },
    { additionalProperties: false, description: 'changes an attribute along the pathway (e.g. acuity after triage)' },
  ),
  Type.Object(
    { id: Id, label: StepLabel, kind: Type.Literal('seize'), resource: Id, queue_limit: Type.Optional(QueueLimit), next: Id },
    {
      additionalProperties: false,
      description:
        'waits (FIFO) for a unit of the resource and holds it through the following steps until a release step of the same resource; an entity may hold several resources at once; with queue_limit, an entity finding max_waiting or more waiting for the resource is turned away to queue_limit.to (or leaves) without the unit',
    },
  ),
  Type.Object(
    { id: Id, label: StepLabel, kind: Type.Literal('release'), resource: Id, next: Id },
    { additionalProperties: false, description: 'gives back a unit of the resource seized earlier on the pathway' },
  ),
  Type.Object({ id: Id, label: StepLabel, kind: Type.Literal('exit') }, { additionalProperties: false }),
]);

export const TimeWindow = Type.Object(
  { start: Type.Number({ minimum: 0 }), end: Type.Number({ exclusiveMinimum: 0 }) },
  { additionalProperties: false, description: 'world time units; defaults to [warm_up, horizon]' },
);

const measureCommon = { id: Id, label: Type.Optional(Label(200)), window: Type.Optional(TimeWindow) };

export const Measure = Type.Union([
  Type.Object(
    {
      ...measureCommon,
      kind: Type.Literal('time_between'),
      from: StepRefs,
      to: StepRefs,
      unit: TimeUnit,
      denominator: Type.Literal('entity'),
      censoring: Type.Union([Type.Literal('exclude'), Type.Literal('at_horizon')]),
      percentiles: Type.Optional(
        Type.Array(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }), {
          minItems: 1,
          maxItems: 10,
          description:
            'entity-level quantiles to report (e.g. 0.9 = the time 90% of entities are within), pooled over replications from a streaming sketch (1% relative accuracy)',
        }),
      ),
      threshold: Type.Optional(
        Type.Number({ minimum: 0, description: 'report the share of entities whose time exceeds this many measure units (e.g. 4 hours)' }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...measureCommon,
      kind: Type.Literal('count'),
      event: StepRefs,
      unit: Type.Union([Type.Literal('count'), Type.Literal('count_per_arrival'), Type.Literal('count_per_day')]),
      denominator: Type.Union([Type.Literal('replication'), Type.Literal('arrival'), Type.Literal('day')]),
      censoring: Type.Literal('none'),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...measureCommon,
      kind: Type.Literal('utilisation'),
      resource: Id,
      unit: Type.Literal('fraction'),
      denominator: Type.Literal('capacity_time'),
      censoring: Type.Literal('none'),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...measureCommon,
      kind: Type.Literal('queue_length'),
      resource: Id,
      unit: Type.Literal('entities'),
      denominator: Type.Literal('time'),
      censoring: Type.Literal('none'),
    },
    { additionalProperties: false },
  ),
]);

export const VariantStructure = Type.Object(
  {
    replace_steps: Type.Optional(
      Type.Array(Step, {
        minItems: 1,
        maxItems: 100,
        description: 'steps that replace the step of the same id under this variant (another queue discipline, distribution family, next step...)',
      }),
    ),
    add_steps: Type.Optional(
      Type.Array(Step, { minItems: 1, maxItems: 100, description: 'steps that exist only under this variant (reached through a replaced step)' }),
    ),
    remove_steps: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, description: 'steps that do not exist under this variant (no longer reached)' })),
    rationale: Type.Optional(Text()),
  },
  {
    additionalProperties: false,
    description: 'a variant that changes the structure of the pathway, not only settings; the resulting world is validated as a whole',
  },
);

export const Variant = Type.Object(
  {
    id: Id,
    label: Label(200),
    role: Type.Union([Type.Literal('baseline'), Type.Literal('treatment')]),
    changes: Type.Array(Type.Object({ setting: Id, value: Type.Number(), rationale: Type.Optional(Text()) }, { additionalProperties: false }), {
      maxItems: 100,
    }),
    structure: Type.Optional(VariantStructure),
  },
  { additionalProperties: false },
);

const Amount = Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'null when unknown: totals that need it stay undefined' });

export const CostRate = Type.Object(
  {
    id: Id,
    measure: Id,
    label: Type.Optional(Label(200)),
    per: Type.Optional(
      Type.Union([Type.Literal('event'), Type.Literal('capacity_hour'), Type.Literal('busy_hour'), Type.Literal('entity_hour')], {
        description:
          'event (default): per event of a count measure; capacity_hour: per server-hour available at the resource of a utilisation measure (staffed time); busy_hour: per server-hour busy there; entity_hour: per hour entities spend between the moments of a time_between measure',
      }),
    ),
    low: Amount,
    base: Amount,
    high: Amount,
    source: SettingSource,
  },
  { additionalProperties: false, description: 'prices one measure: cost per counted event, per resource-hour or per entity-hour (see per)' },
);

export const AdditionalCost = Type.Object(
  {
    id: Id,
    label: Label(200),
    variants: Type.Array(Id, { minItems: 1, maxItems: 20 }),
    per: Type.Union([Type.Literal('replication'), Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('year')], {
      description: 'once per replication, or per hour, day, week or year (365.25 days) of the window from warm-up to horizon',
    }),
    low: Amount,
    base: Amount,
    high: Amount,
    source: SettingSource,
  },
  { additionalProperties: false },
);

export const CostScenarios = Type.Object(
  {
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    rates: Type.Array(CostRate, { minItems: 1, maxItems: 100 }),
    additional_costs: Type.Optional(Type.Array(AdditionalCost, { maxItems: 100 })),
    discount_rate_annual: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          'discount every cost at this annual rate (0.035 = 3.5%): a cost at time t after the warm-up counts (1 + rate)^-(t / 365.25 days), compounded continuously; per-replication amounts are not discounted',
      }),
    ),
  },
  { additionalProperties: false },
);

export const StopWhen = Type.Object(
  {
    measure: Id,
    half_width: Type.Number({ exclusiveMinimum: 0, description: "target half-width of the 95% interval, in the measure's unit" }),
    min_replications: Type.Optional(
      Type.Integer({ minimum: 2, maximum: 1000, description: 'replications per variant before the rule is checked (default 5)' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "stop before `replications` once every variant's 95% interval of this measure (and every treatment's paired difference) has at most this half-width; `replications` stays the maximum and the budget still applies",
  },
);

export const WorldSpec = Type.Object(
  {
    contract: Type.Literal('WorldSpec'),
    version: Type.Literal(WORLD_SPEC_VERSION),
    name: Label(200),
    description: Type.Optional(Text(4000)),
    synthetic: Type.Optional(Type.Literal(true)),
    time_unit: TimeUnit,
    horizon: Type.Number({ exclusiveMinimum: 0 }),
    warm_up: Type.Number({ minimum: 0 }),
    replications: Type.Integer({ minimum: 1 }),
    seed: Type.Integer({ minimum: 0, maximum: 4294967295 }),
    settings: Type.Record(Id, Setting),
    arrivals: Type.Array(Arrival, { minItems: 1, maxItems: 50 }),
    resources: Type.Array(ResourceSpec, { maxItems: 100 }),
    steps: Type.Array(Step, { minItems: 1, maxItems: 500 }),
    measured: Type.Array(Measure, { minItems: 1, maxItems: 100 }),
    variants: Type.Array(Variant, { minItems: 1, maxItems: 20 }),
    cost_scenarios: Type.Optional(CostScenarios),
    stop_when: Type.Optional(StopWhen),
  },
  { $id: 'https://crucible.dev/schemas/WorldSpec/1.0.0', additionalProperties: false },
);

export type Parameter = Static<typeof Parameter>;
export type SettingSource = Static<typeof SettingSource>;
export type Setting = Static<typeof Setting>;
export type Distribution = Static<typeof Distribution>;
export type Arrival = Static<typeof Arrival>;
export type ResourceSpec = Static<typeof ResourceSpec>;
export type Shift = Static<typeof Shift>;
export type Breakdowns = Static<typeof Breakdowns>;
export type StepRef = Static<typeof StepRef>;
export type StepRefs = Static<typeof StepRefs>;
export type Step = Static<typeof Step>;
export type QueueLimit = Static<typeof QueueLimit>;
export type BatchSizes = Static<typeof BatchSizes>;
export type Measure = Static<typeof Measure>;
export type Variant = Static<typeof Variant>;
export type CostRate = Static<typeof CostRate>;
export type AdditionalCost = Static<typeof AdditionalCost>;
export type CostScenarios = Static<typeof CostScenarios>;
export type WorldSpec = Static<typeof WorldSpec>;
export type StopWhen = Static<typeof StopWhen>;
export type TimeUnit = (typeof TIME_UNITS)[number];

// The 13 rubric dimensions of the concept review (spec: ConceptReview — eight named, five "not shown").
// The five added ones come from established health-technology evaluation frameworks; docs/decisions.md
// records each source. The order here is the order of the review.

export const DIMENSION_IDS = [
  'need',
  'users',
  'workflow_fit',
  'safety_scope',
  'equity',
  'feasibility',
  'adoption',
  'evaluation_plan',
  'value_and_economic_case',
  'data_protection_and_security',
  'interoperability',
  'usability_and_human_factors',
  'regulatory_and_clinical_safety_classification',
] as const;
export type DimensionId = (typeof DIMENSION_IDS)[number];

export type DimensionDefinition = {
  id: DimensionId;
  name: string;
  /** What the dimension asks, in one line (sent to the drafter, shown in the review). */
  asks: string;
  /** Where the dimension comes from. */
  source: string;
  /** Words that make a sentence relevant to the dimension (offline drafter). */
  keywords: readonly string[];
  /** Questions a team should answer; `{topic}` is replaced by the project's topic in the person's words ("the problem (“…”)"). */
  questions: readonly string[];
  /** Next experiments that would test the dimension cheaply. */
  next_experiments: readonly string[];
};

const SPEC = 'Crucible specification, ConceptReview (named dimension)';

export const DIMENSIONS: readonly DimensionDefinition[] = [
  {
    id: 'need',
    name: 'Need',
    asks: 'Is there evidence that the problem exists, is frequent or severe, and is unmet by current care?',
    source: SPEC,
    keywords: [
      'prevalence',
      'incidence',
      'burden',
      'unmet',
      'delay',
      'waiting',
      'mortality',
      'morbidity',
      'need',
      'problem',
      'admission',
      'admissions',
      'readmission',
      'readmissions',
      'hospitalisation',
      'hospitalization',
    ],
    questions: [
      'How many people in the intended setting are affected by {topic}, and how often?',
      'What happens today when the problem is not solved, and who bears the cost?',
    ],
    next_experiments: [
      'Pull a month of local activity data to count how often {topic} occurs.',
      'Interview five people who live with the problem about their last occurrence.',
    ],
  },
  {
    id: 'users',
    name: 'Users',
    asks: 'Who would use the technology, what do they need from it, and how do different users differ?',
    source: SPEC,
    keywords: ['patients', 'clinicians', 'nurses', 'users', 'participants', 'staff', 'carers', 'practitioners', 'physicians'],
    questions: [
      'Which user group would use this first, and what would they stop doing?',
      'How do patients and staff differ in what they need from the technology?',
    ],
    next_experiments: ['Shadow two intended users for half a day each and list where the tool would enter their day.'],
  },
  {
    id: 'workflow_fit',
    name: 'Workflow fit',
    asks: 'Where does the technology enter the care pathway, and what steps does it add, remove or change?',
    source: SPEC,
    keywords: ['workflow', 'pathway', 'process', 'integration', 'referral', 'triage', 'workload', 'time', 'routine', 'clinic'],
    questions: ['Which step of the current pathway does this replace, and who owns that step?', 'What extra work does it create, and for whom?'],
    next_experiments: ['Map the current pathway step by step with one clinical team and mark where the tool acts.'],
  },
  {
    id: 'safety_scope',
    name: 'Safety scope',
    asks: 'What could go wrong for patients, what is out of scope, and which harms must be monitored?',
    source: SPEC,
    keywords: ['safety', 'harm', 'adverse', 'risk', 'error', 'missed', 'false', 'negative', 'incident', 'hazard'],
    questions: ['What is the worst plausible harm if the tool gives a wrong answer?', 'Which patients or situations are explicitly out of scope?'],
    next_experiments: ['Run a hazard identification workshop and write a first hazard log.'],
  },
  {
    id: 'equity',
    name: 'Equity',
    asks: 'Who might be left out or harmed unequally (language, disability, digital access, deprivation, ethnicity, age)?',
    source: SPEC,
    keywords: ['equity', 'inequalities', 'disparities', 'deprivation', 'ethnic', 'ethnicity', 'access', 'language', 'age', 'older', 'literacy', 'disability'],
    questions: [
      'Which groups are least likely to be able to use this, and what would they do instead?',
      'Was any supporting evidence gathered in a population like yours?',
    ],
    next_experiments: ['Test the concept with users from at least two under-served groups and record where it fails them.'],
  },
  {
    id: 'feasibility',
    name: 'Feasibility',
    asks: 'Can it be built, run and maintained with the data, technology and people available?',
    source: SPEC,
    keywords: [
      'feasibility',
      'feasible',
      'implementation',
      'accuracy',
      'performance',
      'data',
      'algorithm',
      'technical',
      'validation',
      'sensitivity',
      'specificity',
    ],
    questions: ['What data would the tool need, and does that data exist in the setting today?', 'What is the smallest version that could be tried safely?'],
    next_experiments: ['Build a paper or clickable prototype and run it on five realistic cases.'],
  },
  {
    id: 'adoption',
    name: 'Adoption',
    asks: 'What would make organizations and people take it up and keep using it (the NASSS adopter and organization domains)?',
    source: `${SPEC}; see also the NASSS framework (Greenhalgh et al., 2017), adopter and organization domains`,
    keywords: ['adoption', 'uptake', 'acceptability', 'engagement', 'barriers', 'facilitators', 'implementation', 'retention', 'adherence'],
    questions: ['Who has to say yes before this can be used, and what do they need to see?', 'What has stopped similar tools from spreading?'],
    next_experiments: ['Ask three decision makers what evidence would make them try it, and write their answers down verbatim.'],
  },
  {
    id: 'evaluation_plan',
    name: 'Evaluation plan',
    asks: 'How would benefit and harm be measured, against what comparator, with what outcome measures?',
    source: SPEC,
    keywords: ['evaluation', 'trial', 'randomised', 'randomized', 'outcome', 'outcomes', 'cohort', 'study', 'comparator', 'effectiveness', 'measured'],
    questions: [
      'What single outcome would show the tool helps, and how is it measured today?',
      'What is the comparator: current care, another tool, or nothing?',
    ],
    next_experiments: ['Write a one-page evaluation protocol with one primary outcome and its data source.'],
  },
  {
    id: 'value_and_economic_case',
    name: 'Value and economic case',
    asks: 'What value would it create, for whom, at what cost compared with current care?',
    source: "NICE Evidence Standards Framework for digital health technologies (2022), economic impact standards; NASSS 'value proposition' domain",
    keywords: ['cost', 'costs', 'economic', 'savings', 'value', 'budget', 'resource', 'cost-effectiveness', 'qaly', 'spend'],
    questions: ['Who would pay, from which budget, and what would they save or gain?', 'What does the current alternative cost per patient?'],
    next_experiments: ['Build a simple budget-impact table for one setting from published unit costs, and show it to a budget holder.'],
  },
  {
    id: 'data_protection_and_security',
    name: 'Data protection and security',
    asks: 'What personal data is processed, on what lawful basis, and how is it secured?',
    source: 'NHS Digital Technology Assessment Criteria (DTAC), sections C2 data protection and C3 technical security',
    keywords: ['privacy', 'security', 'confidentiality', 'consent', 'personal', 'gdpr', 'encryption', 'breach', 'governance', 'data'],
    questions: ['Which personal or health data does the tool need, and could it work with less?', 'Who would be the data controller, and is a DPIA needed?'],
    next_experiments: ['Draft a data flow diagram and a first data protection impact assessment.'],
  },
  {
    id: 'interoperability',
    name: 'Interoperability',
    asks: 'Which systems must it exchange data with, and through which standards?',
    source: 'NHS Digital Technology Assessment Criteria (DTAC), section C4 interoperability; NASSS technology domain',
    keywords: ['interoperability', 'integration', 'record', 'records', 'ehr', 'electronic', 'fhir', 'hl7', 'systems', 'standards'],
    questions: [
      'Which clinical record systems are used in the setting, and would staff enter data twice?',
      'Which data standard (for example FHIR) would the exchange use?',
    ],
    next_experiments: ['List the systems in one target site and ask their suppliers what interfaces they offer.'],
  },
  {
    id: 'usability_and_human_factors',
    name: 'Usability and human factors',
    asks: 'Can intended users use it correctly, quickly and accessibly in real conditions?',
    source: 'NHS Digital Technology Assessment Criteria (DTAC), section D usability and accessibility; IEC 62366-1 usability engineering',
    keywords: ['usability', 'usable', 'accessibility', 'interface', 'human', 'factors', 'satisfaction', 'ease', 'design', 'burden'],
    questions: [
      'What mistakes could a tired user make with it, and what would they lead to?',
      'Does it meet accessibility needs (WCAG 2.2 AA) of the intended users?',
    ],
    next_experiments: ['Run a think-aloud test of the prototype with five intended users and count task failures.'],
  },
  {
    id: 'regulatory_and_clinical_safety_classification',
    name: 'Regulatory and clinical-safety classification',
    asks: 'Is it a medical device, what class and NICE evidence tier would apply, and which clinical safety standards are needed?',
    source:
      'NICE Evidence Standards Framework (evidence tiers by function); UK MDR 2002 / EU MDR medical device classification; NHS DTAC section C1 clinical safety (DCB0129, DCB0160)',
    keywords: ['regulatory', 'regulation', 'device', 'medical', 'certification', 'approval', 'class', 'compliance', 'standard', 'clinical'],
    questions: [
      'Does the tool diagnose, treat or guide treatment (which would make it a medical device)?',
      'Which NICE evidence tier matches its intended function?',
    ],
    next_experiments: ['Write the intended-purpose statement and check it against the MHRA guidance on software as a medical device.'],
  },
];

export function dimensionById(id: string): DimensionDefinition | undefined {
  return DIMENSIONS.find((dimension) => dimension.id === id);
}

// @crucible/sdk/words: the plain-language words the service, the web app and any client share, so a thing is said one
// way wherever it is read: a recorded failure (failureWords), a model checker's problem (problemWords), a run's results
// in their units (resultWords, simulationWords) and small rules of written English (sentences). Pure: no imports but
// each other, nothing of the network; the service imports these files too, and they are the only source of these words.
export * from './failureWords.ts';
export * from './problemWords.ts';
export * from './resultWords.ts';
export * from './sentences.ts';
export * from './simulationWords.ts';

// Named builders for the intake corpus: every file is made by code (STYLE.md: fixtures are built by code, not copied blobs).
// Secret and identifier values are generated here so tests can search outputs for the raw values.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { ExtractionInput } from '../../compute/extraction.ts';
import type { FindingKind, SourceStatus } from '../../domain/intake/sources.ts';

export type CorpusFile = {
  name: string;
  input: ExtractionInput;
  expected_status: SourceStatus;
  expected_finding_kinds: FindingKind[]; // distinct kinds, sorted
  raw_values: string[]; // secrets or identifiers that must never appear in any output
};

const encode = (text: string) => new TextEncoder().encode(text);
const file = (filename: string, text: string, content_type?: string): ExtractionInput => ({ kind: 'file', filename, content_type, bytes: encode(text) });

// ---------- project material ----------

export const PROJECT_BRIEF_TXT = [
  'Project brief: FastTrack Referral',
  '',
  'Problem: patients referred for suspected skin cancer wait too long for a specialist review in primary care.',
  'Solution: an app that lets GP practice nurses send dermoscopy photos to a consultant dermatologist for triage.',
  'Intended users: practice nurses and GPs in general practice.',
  'Stage: we have a working prototype tested with three practices.',
  'Our data suggests the app reduces time to triage by 40% compared with paper referrals.',
  'Buyer: the integrated care board commissioning dermatology services.',
  'Risk: a missed melanoma if photo quality is poor.',
].join('\n');

export const PROJECT_BRIEF_MD = [
  '# FastTrack Referral',
  '',
  '## Problem',
  'Dermatology referral queues are growing and urgent cases are delayed.',
  '',
  '## Care pathway',
  '1. The nurse photographs the lesion during a routine appointment.',
  '2. The consultant reviews the photos within two working days.',
  '3. The practice books urgent cases into the two-week-wait clinic.',
  '',
  '## Evidence',
  '- An audit of 120 referrals at one practice found half were routine lesions.',
  '',
  '## Budget',
  '- The dermatology outpatient budget held by the trust would fund the licence.',
].join('\n');

export const PROJECT_FACTS_JSON = JSON.stringify(
  {
    project: 'FastTrack Referral',
    care_setting: 'General practice surgeries in one integrated care system',
    current_alternative: 'Paper referral letters sent to the hospital dermatology team',
    dependencies: ['Access to the practice electronic patient record'],
  },
  null,
  2,
);

export function textFile(): CorpusFile {
  return {
    name: 'brief.txt',
    input: file('brief.txt', PROJECT_BRIEF_TXT, 'text/plain'),
    expected_status: 'processed',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export function markdownFile(): CorpusFile {
  return {
    name: 'pathway.md',
    input: file('pathway.md', PROJECT_BRIEF_MD, 'text/markdown'),
    expected_status: 'processed',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export function jsonFile(): CorpusFile {
  return {
    name: 'facts.json',
    input: file('facts.json', PROJECT_FACTS_JSON, 'application/json'),
    expected_status: 'processed',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export function brokenJsonFile(): CorpusFile {
  return {
    name: 'broken.json',
    input: file('broken.json', '{\n  "project": "FastTrack",\n  "stage": prototype\n}'),
    expected_status: 'error',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

// ---------- images and PDFs ----------

/** A real PNG (RGB, filled with one colour), built byte by byte. */
export function buildPng(width = 8, height = 8): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rows.set([200, 120, 40], y * (width * 3 + 1) + 1 + x * 3);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(rows)),
      chunk('IEND', new Uint8Array()),
    ]),
  );
}

export type PdfPage = { kind: 'text'; lines: string[] } | { kind: 'image' };

/** A PDF whose pages are either text (a real text layer, Helvetica) or a single embedded image with no text. */
export async function buildPdf(pages: PdfPage[]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const image = await document.embedPng(buildPng(64, 64));
  for (const spec of pages) {
    const page = document.addPage([595, 842]);
    if (spec.kind === 'text') {
      for (const [index, line] of spec.lines.entries()) page.drawText(line, { x: 50, y: 790 - index * 16, size: 11, font });
    } else page.drawImage(image, { x: 50, y: 300, width: 400, height: 400 });
  }
  return document.save({ useObjectStreams: false });
}

export const PDF_PAGE_ONE = ['Pilot summary: FastTrack Referral', 'We are piloting the app with two practices in the north of the county.'];
export const PDF_PAGE_THREE = ['Risks: photos taken in poor light may hide the edge of a lesion.'];

export async function textLayerPdf(): Promise<CorpusFile> {
  const bytes = await buildPdf([
    { kind: 'text', lines: PDF_PAGE_ONE },
    { kind: 'text', lines: PDF_PAGE_THREE },
  ]);
  return {
    name: 'pilot.pdf',
    input: { kind: 'file', filename: 'pilot.pdf', content_type: 'application/pdf', bytes },
    expected_status: 'processed',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export async function imageOnlyPdf(): Promise<CorpusFile> {
  const bytes = await buildPdf([{ kind: 'image' }, { kind: 'image' }]);
  return {
    name: 'scanned.pdf',
    input: { kind: 'file', filename: 'scanned.pdf', content_type: 'application/pdf', bytes },
    expected_status: 'unsupported',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export async function mixedPdf(): Promise<CorpusFile> {
  const bytes = await buildPdf([{ kind: 'text', lines: PDF_PAGE_ONE }, { kind: 'image' }, { kind: 'text', lines: PDF_PAGE_THREE }]);
  return {
    name: 'mixed.pdf',
    input: { kind: 'file', filename: 'mixed.pdf', content_type: 'application/pdf', bytes },
    expected_status: 'processed',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export const ENCRYPTED_PDF_USER_PASSWORD = 'open-sesame-1';

/**
 * A text PDF (PDF_PAGE_ONE) encrypted with a user password, AES-256 as real tools produce. pdf-lib cannot encrypt, so this
 * one file is a committed binary fixture (test/fixtures/locked.pdf, 2.4 kB, made once with
 * `qpdf --encrypt open-sesame-1 owner-password-2 256`): a fresh machine needs no system tool to run the suite.
 */
export async function encryptedPdf(): Promise<CorpusFile> {
  const bytes = new Uint8Array(readFileSync(new URL('../fixtures/locked.pdf', import.meta.url)));
  return {
    name: 'locked.pdf',
    input: { kind: 'file', filename: 'locked.pdf', content_type: 'application/pdf', bytes },
    expected_status: 'error',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

export function pngNamedPdf(): CorpusFile {
  return {
    name: 'photo.pdf',
    input: { kind: 'file', filename: 'photo.pdf', content_type: 'application/pdf', bytes: buildPng() },
    expected_status: 'unsupported',
    expected_finding_kinds: [],
    raw_values: [],
  };
}

// ---------- secrets and identifiers ----------

/** Deterministic pseudo-random characters (no Math.random: the corpus is the same on every run). */
function pseudoRandom(alphabet: string, length: number, seed: number): string {
  let state = seed >>> 0;
  let out = '';
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

export const AWS_ACCESS_KEY_ID = `AKIA${pseudoRandom('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16, 7)}`;
export const AWS_SECRET_ACCESS_KEY = pseudoRandom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+', 40, 11);

export function awsKeyFile(): CorpusFile {
  const text = ['Deployment notes for the triage service', `aws_access_key_id = ${AWS_ACCESS_KEY_ID}`, `aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}`].join(
    '\n',
  );
  return {
    name: 'deploy.txt',
    input: file('deploy.txt', text),
    expected_status: 'excluded_for_privacy',
    expected_finding_kinds: ['aws_access_key', 'aws_secret_key'],
    raw_values: [AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY],
  };
}

let private_key_pem: string | null = null;
/** A real Ed25519 private key in PKCS#8 PEM, generated once per process. */
export function privateKeyPem(): string {
  private_key_pem ??= generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return private_key_pem;
}

export function privateKeyFile(): CorpusFile {
  const pem = privateKeyPem();
  const body = pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
  const text = ['# Signing key for the referral API', '', '```', pem.trim(), '```'].join('\n');
  return { name: 'keys.md', input: file('keys.md', text), expected_status: 'excluded_for_privacy', expected_finding_kinds: ['private_key'], raw_values: body };
}

/** The modulus-11 check digit for nine NHS digits, or null when none exists (remainder gives 10). */
export function nhsCheckDigit(nine_digits: string): number | null {
  let sum = 0;
  for (let index = 0; index < 9; index++) sum += Number(nine_digits[index]) * (10 - index);
  const check = 11 - (sum % 11);
  if (check === 10) return null;
  return check === 11 ? 0 : check;
}

export const VALID_NHS_NUMBER = `943 476 591${nhsCheckDigit('943476591')}`; // 943 476 5919
export const CHECKSUM_FAILING_NHS_NUMBER = `943 476 591${(nhsCheckDigit('943476591')! + 1) % 10}`; // 943 476 5910

export function nhsNumberFile(): CorpusFile {
  const text = ['Referral audit, practice 4', `Patient NHS number ${VALID_NHS_NUMBER} was referred on the urgent pathway.`].join('\n');
  return {
    name: 'audit.txt',
    input: file('audit.txt', text),
    expected_status: 'excluded_for_privacy',
    expected_finding_kinds: ['nhs_number'],
    raw_values: [VALID_NHS_NUMBER, VALID_NHS_NUMBER.replace(/ /g, '')],
  };
}

export function nhsChecksumFailingFile(): CorpusFile {
  // Health context on purpose: the number must not be flagged as anything else either.
  const text = ['Referral audit, practice 5', `Patient referral batch reference ${CHECKSUM_FAILING_NHS_NUMBER} was processed on time.`].join('\n');
  return { name: 'batch.txt', input: file('batch.txt', text), expected_status: 'processed', expected_finding_kinds: [], raw_values: [] };
}

export const US_SSN = '219-09-9999';
export const IMPOSSIBLE_SSN = '666-12-3456';

export function ssnFile(): CorpusFile {
  const text = ['US pilot enrolment form', `Applicant SSN: ${US_SSN}`].join('\n');
  return {
    name: 'enrolment.txt',
    input: file('enrolment.txt', text),
    expected_status: 'excluded_for_privacy',
    expected_finding_kinds: ['us_ssn'],
    raw_values: [US_SSN],
  };
}

export function impossibleSsnFile(): CorpusFile {
  const text = ['Form layout example', `The number field looks like ${IMPOSSIBLE_SSN} in the template.`].join('\n');
  return { name: 'template.txt', input: file('template.txt', text), expected_status: 'processed', expected_finding_kinds: [], raw_values: [] };
}

export const PATIENT_LETTER_VALUES = {
  name: 'Margaret Okafor',
  mrn: 'RX4418823',
  date_of_birth: '14/03/1952',
  email: 'm.okafor@example.org',
  phone: '07700 900123',
  postcode: 'LS1 4AP',
};

export function patientLetterFile(): CorpusFile {
  const v = PATIENT_LETTER_VALUES;
  const text = [
    'Clinic letter',
    `Patient: ${v.name}, MRN: ${v.mrn}`,
    `DOB: ${v.date_of_birth}`,
    `Contact the patient at ${v.email} or phone ${v.phone} about the appointment.`,
    `Patient address postcode ${v.postcode}.`,
  ].join('\n');
  return {
    name: 'letter.txt',
    input: file('letter.txt', text),
    expected_status: 'excluded_for_privacy',
    expected_finding_kinds: ['date_of_birth', 'email', 'medical_record_number', 'patient_name', 'phone_number', 'postal_address'],
    raw_values: Object.values(v),
  };
}

export const AI_KEY = `sk-proj-${pseudoRandom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 48, 23)}`;
export const DB_PASSWORD = `Zq${pseudoRandom('abcdefghijkmnpqrstuvwxyz23456789', 10, 31)}`;

export function configFile(): CorpusFile {
  const text = JSON.stringify({ service: 'triage', openai_api_key: AI_KEY, database: { user: 'triage', password: DB_PASSWORD } }, null, 2);
  return {
    name: 'config.json',
    input: file('config.json', text, 'application/json'),
    expected_status: 'excluded_for_privacy',
    expected_finding_kinds: ['ai_provider_key', 'password'],
    raw_values: [AI_KEY, DB_PASSWORD],
  };
}

/** The whole corpus of the intake tests (docs/intake.md), plus a few screening cases. */
export async function buildCorpus(): Promise<CorpusFile[]> {
  return [
    textFile(),
    markdownFile(),
    jsonFile(),
    brokenJsonFile(),
    await textLayerPdf(),
    await imageOnlyPdf(),
    await mixedPdf(),
    await encryptedPdf(),
    pngNamedPdf(),
    awsKeyFile(),
    privateKeyFile(),
    nhsNumberFile(),
    nhsChecksumFailingFile(),
    ssnFile(),
    impossibleSsnFile(),
    patientLetterFile(),
    configFile(),
  ];
}

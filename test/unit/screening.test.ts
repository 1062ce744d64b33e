import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPossibleSsn, isValidNhsNumber, maskFor, maskValue, screenLines } from '../../domain/intake/screening.ts';
import { nhsCheckDigit } from '../support/corpus.ts';

const kinds = (lines: string[]) => screenLines(lines).findings.map((finding) => finding.kind);

describe('NHS numbers', () => {
  it('accepts a number whose modulus-11 check digit matches and rejects every other last digit', () => {
    expect(isValidNhsNumber('943 476 5919')).toBe(true);
    for (let digit = 0; digit <= 8; digit++) expect(isValidNhsNumber(`943 476 591${digit}`)).toBe(false);
  });

  it('never accepts nine digits whose check digit would be 10', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{9}$/), (nine) => {
        const check = nhsCheckDigit(nine);
        if (check === null) for (let digit = 0; digit <= 9; digit++) expect(isValidNhsNumber(`${nine}${digit}`)).toBe(false);
        else expect(isValidNhsNumber(`${nine}${check}`)).toBe(true);
      }),
    );
  });

  it('flags a valid NHS number in 3-3-4, dashed and unbroken forms, and masks it', () => {
    for (const form of ['943 476 5919', '943-476-5919', '9434765919']) {
      const { findings } = screenLines([`ref ${form}`]);
      expect(findings).toHaveLength(1);
      expect(findings[0]!.kind).toBe('nhs_number');
      expect(findings[0]!.masked).not.toContain('476');
    }
    expect(screenLines(['NHS no. 943 476 5919']).findings[0]!.masked).toBe('943 *** **19');
  });

  it('does not flag an NHS-shaped number failing its checksum', () => {
    expect(screenLines(['Patient record 943 476 5910 for the clinic']).findings).toEqual([]);
  });
});

describe('US SSNs', () => {
  it('excludes impossible areas, groups and serials', () => {
    expect(isPossibleSsn('219-09-9999')).toBe(true);
    for (const impossible of ['000-12-3456', '666-12-3456', '900-12-3456', '999-12-3456', '219-00-9999', '219-09-0000']) {
      expect(isPossibleSsn(impossible), impossible).toBe(false);
      expect(kinds([`SSN ${impossible}`]), impossible).toEqual([]);
    }
    expect(kinds(['SSN 219-09-9999'])).toEqual(['us_ssn']);
    expect(kinds(['social security number 219099999'])).toEqual(['us_ssn']);
  });
});

describe('secrets', () => {
  it('flags private keys, cloud and AI provider keys, tokens and passwords', () => {
    expect(kinds(['-----BEGIN RSA PRIVATE KEY-----'])).toEqual(['private_key']);
    expect(kinds(['-----BEGIN OPENSSH PRIVATE KEY-----'])).toEqual(['private_key']);
    expect(kinds(['id AKIAZ7QWERTYUIOPLKJH'])).toEqual(['aws_access_key']);
    expect(kinds([`AIza${'Sy'.repeat(17)}B`])).toEqual(['cloud_key']);
    expect(kinds([`key: sk-ant-api03-${'a1B2'.repeat(10)}`])).toEqual(['ai_provider_key']);
    expect(kinds([`ghp_${'x1Y2'.repeat(9)}`])).toEqual(['token']);
    expect(kinds(['Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'])).toEqual(['token']);
    expect(kinds(['db_password = "Tr0ub4dor&3"'])).toEqual(['password']);
    expect(kinds(['postgres://app:s3cretpw@db.internal/app'])).toEqual(['password']);
  });

  it('ignores placeholders in password assignments', () => {
    expect(kinds(['password = <your password>', 'password: ********', 'password=$' + '{DB_PASSWORD}', 'api_key = "YOUR_API_KEY"'])).toEqual([]);
  });

  it('flags a high-entropy string only next to a keyword', () => {
    const random = 'q8Zr2Lx9Vb4Nt7Kp1Wm5Hs3Jd6Fg0Yc';
    expect(kinds([`signing credential ${random}`])).toEqual(['high_entropy_secret']);
    expect(kinds([`build ${random}`])).toEqual([]);
  });
});

describe('patient context', () => {
  it('flags MRNs and dates of birth next to their context words only', () => {
    expect(kinds(['MRN: AB123456'])).toEqual(['medical_record_number']);
    expect(kinds(['DOB 02/11/1948'])).toEqual(['date_of_birth']);
    expect(kinds(['date of birth: 2 November 1948'])).toEqual(['date_of_birth']);
    expect(kinds(['The meeting is on 02/11/1948'])).toEqual([]);
  });

  it('flags a name next to an identifier but not a name alone', () => {
    expect(kinds(['Patient: Ada Lovelace', 'MRN 44556677'])).toEqual(['patient_name', 'medical_record_number']);
    expect(kinds(['Patient: Ada Lovelace liked the design'])).toEqual([]);
  });

  it('flags email, phone and address next to health context only', () => {
    expect(kinds(['The patient can be reached at ada@example.org'])).toEqual(['email']);
    expect(kinds(['Questions about the app: team@example.org'])).toEqual([]);
    expect(kinds(['Patient phone 0113 496 0000'])).toEqual(['phone_number']);
    expect(kinds(['Patient lives at 12 Elm Road'])).toEqual(['postal_address']);
    expect(kinds(['Our office is at 12 Elm Road, LS1 4AP'])).toEqual([]);
  });
});

describe('masking', () => {
  it('keeps separators and reveals at most half the characters', () => {
    expect(maskValue('943 476 5919', 3, 2)).toBe('943 *** **19');
    expect(maskValue('abcd', 3, 2)).toBe('a**d');
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), (value) => {
        const masked = maskValue(value, 3, 2);
        const hidden = [...masked].filter((char) => char === '*').length;
        const letters = [...value].filter((char) => /[\p{L}\p{N}]/u.test(char)).length;
        expect(hidden * 2).toBeGreaterThanOrEqual(letters);
      }),
    );
  });

  it('never shows a password, not even its length', () => {
    expect(maskFor('password', 'correct horse battery staple')).toBe('********');
  });
});

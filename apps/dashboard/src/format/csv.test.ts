import { describe, expect, it } from 'vitest';
import { parseBulkCsv } from './bulk-rows';
import { parseCsv, toCsv } from './csv';
import { formatCents } from './money';
import { parseMajorUnits } from './parse-money';

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and a BOM', () => {
    const text = '\ufeffa,b,c\r\n"x, y","say ""hi""","two\nlines"\n1,,3\n\n';
    expect(parseCsv(text)).toEqual([
      ['a', 'b', 'c'],
      ['x, y', 'say "hi"', 'two\nlines'],
      ['1', '', '3'],
    ]);
  });

  it('reads a ;-separated file (European spreadsheets), with a quoted field holding ; , and a line break', () => {
    const text = 'name;amount;note\r\nAda;25,50;"one; two, three\r\nfour"\r\nBo;10;\r\n';
    expect(parseCsv(text)).toEqual([
      ['name', 'amount', 'note'],
      ['Ada', '25,50', 'one; two, three\r\nfour'],
      ['Bo', '10', ''],
    ]);
  });

  it('keeps a comma file comma-separated when its cells hold semicolons', () => {
    expect(parseCsv('a,b\nx;y,z\n1,2;3\n')).toEqual([
      ['a', 'b'],
      ['x;y', 'z'],
      ['1', '2;3'],
    ]);
  });

  it('reads rows ended by CR alone (old Mac files)', () => {
    expect(parseCsv('a,b\r1,2\r')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('refuses a file that ends inside a quote, or text after a closing quote', () => {
    expect(() => parseCsv('a,"b\n')).toThrow(/quoted/);
    expect(() => parseCsv('a,b\n"x"y,z\n')).toThrow(/Row 2: a quoted field has text after its closing quote/);
  });
});

describe('toCsv', () => {
  it('round-trips through parseCsv', () => {
    const rows = [['id', 'note'], ['rw_1', 'a, "quoted"\nnote'], ['rw_2', '']];
    expect(parseCsv(toCsv(rows))).toEqual(rows);
  });

  it('defuses spreadsheet formulas but keeps negative numbers', () => {
    expect(toCsv([['=HYPERLINK("x")', '-2500', '@SUM(A1)']])).toBe('"\'=HYPERLINK(""x"")",-2500,\'@SUM(A1)\r\n');
  });

  it('guards a cell that starts like a number but is not a whole number', () => {
    const cells = ["-2+3+cmd|' /C calc'!A0", '+1', '-1.5', '-2 ', '\t-3', '\r7', '-', '+'];
    const [line] = parseCsv(toCsv([cells]));
    expect(line).toEqual(cells.map((cell) => `'${cell}`));
    expect(toCsv([[-2500, '0', '42', 'a-1']])).toBe('-2500,0,42,a-1\r\n');
  });
});

describe('parseBulkCsv', () => {
  it('turns rows into rewards in cents, and says which line is wrong and why', () => {
    const rows = parseBulkCsv(
      'type,email,first_name,amount,utid,brand_keys\nFIXED,a@example.com,Ada,25,U1,\nchoice,b@example.com,Bo,10.5,,amazon;target\nGIFT,c@example.com,Cy,5,,\nFIXED,d@example.com,Di,abc,U1,\n',
    );
    expect(rows[0]).toEqual({ line: 2, reward: expect.objectContaining({ type: 'FIXED', valueCents: 2500, utid: 'U1', recipient: { email: 'a@example.com', firstName: 'Ada', lastName: undefined } }) });
    expect(rows[1].reward).toEqual(expect.objectContaining({ type: 'CHOICE', valueCents: 1050, allowedBrandKeys: ['amazon', 'target'] }));
    expect(rows[2]).toEqual({ line: 4, error: 'type must be FIXED or CHOICE' });
    expect(rows[3].error).toMatch(/amount/);
  });

  it('reads the template saved by a spreadsheet in a European locale: ; between cells, decimal commas', () => {
    const rows = parseBulkCsv(
      '\ufefftype;email;first_name;amount;brand_keys;message\r\nCHOICE;a@example.com;Ada;25,50;"amazon;target";"Thank you, Ada!\nSee you soon"\r\nFIXED;b@example.com;Bo;10;;\r\n',
    );
    expect(rows).toHaveLength(2);
    expect(rows[0].reward).toEqual(
      expect.objectContaining({ type: 'CHOICE', valueCents: 2550, allowedBrandKeys: ['amazon', 'target'], message: 'Thank you, Ada!\nSee you soon' }),
    );
    expect(rows[1]).toEqual({ line: 3, reward: expect.objectContaining({ type: 'FIXED', valueCents: 1000, recipient: { email: 'b@example.com', firstName: 'Bo', lastName: undefined } }) });
  });

  it('reads the optional language column, in any case; an unknown language is left for the API to refuse', () => {
    const rows = parseBulkCsv('type,email,first_name,amount,language\nCHOICE,a@example.com,Amélie,25,FR\nCHOICE,b@example.com,Bo,10,\nCHOICE,c@example.com,Cy,10,xx\n');
    expect(rows.map((row) => row.reward?.recipient.language)).toEqual(['fr', undefined, 'xx']);
  });

  it('refuses unknown or missing columns', () => {
    expect(() => parseBulkCsv('type,email,first_name,amount,colour\n')).toThrow(/Unknown column: colour/);
    expect(() => parseBulkCsv('type,email,amount\n')).toThrow(/first_name is missing/);
  });
});

describe('money', () => {
  it('parses what people type in major units into cents', () => {
    expect(parseMajorUnits('25')).toBe(2500);
    expect(parseMajorUnits('25.5')).toBe(2550);
    expect(parseMajorUnits(' 0,99 ')).toBe(99);
    expect(parseMajorUnits('25.505')).toBeNull();
    expect(parseMajorUnits('-3')).toBeNull();
  });

  it('formats cents in the account currency', () => {
    expect(formatCents(2550, 'USD', 'en-US')).toBe('$25.50');
    expect(formatCents(100000, 'EUR', 'de-DE')).toBe('1.000,00\u00a0€');
    expect(formatCents(-125, 'GBP', 'en-GB')).toBe('-£1.25');
  });
});

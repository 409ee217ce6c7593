import { expect } from 'chai';
import { USER_PATTERN_CACHE_SIZE, UserPatternError, compileUserPattern } from '../../kernel/index.ts';

describe('compileUserPattern: user regular expressions on a linear-time engine', () => {
  it('matches like RegExp.test (unanchored unless anchored), including JavaScript \\u escapes', () => {
    expect(compileUserPattern('b+').test('abbbc')).to.equal(true);
    expect(compileUserPattern('^b+$').test('abbbc')).to.equal(false);
    expect(compileUserPattern('^caf\\u00e9$').test('café')).to.equal(true);
    expect(compileUserPattern('^\\u{1F600}$').test('😀')).to.equal(true);
    expect(compileUserPattern('^.$').test('😀'), 'a dot is one code point').to.equal(true);
    expect(compileUserPattern('^\\\\u0041$').test('\\u0041'), 'an escaped backslash stays one').to.equal(true);
  });

  it('answers a catastrophic pattern on a long input correctly', () => {
    const nested = compileUserPattern('^(a+)+$');
    expect(nested.test(`${'a'.repeat(100_000)}!`)).to.equal(false);
    expect(nested.test('a'.repeat(100_000))).to.equal(true);
  });

  it('refuses lookaround, backreferences and what does not compile, with the reason', () => {
    for (const source of [
      '(?<=a)b',
      '(?<!a)b',
      'a(?=b)',
      'a(?!b)',
      '(a)\\1',
      '(?<x>a)\\k<x>',
      '(',
      '[a',
      'a{1001}',
      'a\\',
    ]) {
      expect(() => compileUserPattern(source), source).to.throw(UserPatternError, /lookaround or backreferences/);
    }
    expect(() => compileUserPattern('a(?=b)')).to.throw(/unsupported Perl syntax/);
  });

  it('compiles a pattern once and keeps at most USER_PATTERN_CACHE_SIZE of them', () => {
    const first = compileUserPattern('^first-cached$');
    expect(compileUserPattern('^first-cached$')).to.equal(first);
    for (let i = 0; i < USER_PATTERN_CACHE_SIZE; i++) compileUserPattern(`^filler-${i}$`);
    const again = compileUserPattern('^first-cached$');
    expect(again, 'the oldest entry was dropped').to.not.equal(first);
    expect(again.test('first-cached')).to.equal(true);
  });
});

/**
 * CSS as the browser's CSS parser reads it, for the checks on styles: comments dropped, escapes
 * (`\73`, `\73 `, `\s`) decoded, lower case, whitespace removed. `java\73 cript:`, or `expr`
 * and `ession(` with a comment between, spell the words the checks refuse, so those are checked
 * in this form too.
 */
export function cssAsParsed(css: string): string {
  return (
    css
      .replace(/\/\*[\s\S]*?(\*\/|$)/g, '')
      // A hex escape is 1-6 hex digits and one optional white space; any other character stands for itself.
      .replace(/\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\([^\n\r\f])/g, (_m, hex: string | undefined, other: string) =>
        hex === undefined ? other : safeCodePoint(Number.parseInt(hex, 16)),
      )
      .toLowerCase()
      // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers drop control characters in a URL scheme
      .replace(/[\u0000-\u0020\u007f-\u009f]+/g, '')
  );
}

/** U+FFFD for zero, surrogates and values past Unicode, as CSS Syntax decodes them. */
function safeCodePoint(n: number): string {
  return n === 0 || (n >= 0xd800 && n <= 0xdfff) || n > 0x10ffff ? '\ufffd' : String.fromCodePoint(n);
}

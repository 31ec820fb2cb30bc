/**
 * Rules for free text that the service stores or sends onchain (agent and strategy names and descriptions, vote
 * reasons): it must be valid Unicode and free of characters that change how text around it is shown.
 *
 * - Lone surrogates: a UTF-16 string with an unpaired surrogate has no UTF-8 form; sent onchain it becomes bytes that
 *   are not UTF-8 (or the encoder throws).
 * - Control characters (U+0000-U+001F, U+007F-U+009F): NUL, escapes (ANSI colour codes), carriage returns, which
 *   rewrite what a terminal or log shows. Multi-line fields (descriptions, reasons) may hold line feeds and tabs.
 * - Bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069): they reorder the text around them
 *   (the "Trojan Source" trick), so a name can show one thing and hold another.
 */

export interface TextRules {
  /** Line feeds and tabs allowed (descriptions, reasons). */
  multiline?: boolean;
}

/** In a `u` regular expression a surrogate pair is one code point, so this matches only unpaired surrogates. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** C0 and C1 control characters (and DEL); line feed and tab are allowed in multi-line text. */
function hasControl(text: string, multiline: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (multiline && (code === 0x0a || code === 0x09)) continue;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** What is wrong with `text` under the rules (a message without the field name), or null when nothing is. */
export function textProblem(text: string, rules: TextRules = {}): string | null {
  if (LONE_SURROGATE.test(text)) return "must be valid Unicode (it contains an unpaired surrogate)";
  if (hasControl(text, rules.multiline === true)) {
    return rules.multiline
      ? "must not contain control characters other than line feed and tab"
      : "must not contain control characters";
  }
  if (BIDI_CONTROL.test(text)) {
    return "must not contain bidirectional control characters (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)";
  }
  return null;
}

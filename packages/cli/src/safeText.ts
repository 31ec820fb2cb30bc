/**
 * Server text made safe to print on a terminal. A server (or anyone who could write a vault name, a strategy
 * description or an error message into it) must not be able to drive the user's terminal: move the cursor, clear
 * the screen, retitle the window, plant a hyperlink, or reorder the line with bidirectional overrides.
 *
 * `safeText` removes whole escape sequences (CSI `ESC [ ... final`, the string sequences OSC/DCS/SOS/PM/APC up to
 * their BEL or ST terminator, two-byte `ESC x` ones, and their 8-bit C1 forms), then every control left: C0 but
 * newline and tab, DEL, C1, and the Unicode bidirectional embeddings, overrides and isolates. Printable text passes
 * unchanged.
 */

/* eslint-disable no-control-regex -- finding control characters is what these expressions are for */

/**
 * String sequences (OSC, DCS, SOS, PM, APC), 7-bit or 8-bit, up to their terminator (BEL or ST). The payload may
 * hold no ESC, BEL or C1 introducer: each try then stops at the next one, so text made of unterminated introducers
 * is cleaned in linear time (a lazy `[\s\S]*?` rescans to the end from each of them).
 */
const STRING_SEQUENCE = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x90\x98\x9b-\x9f]*(?:\x07|\x1b\\|\x9c)/g;
/** CSI sequences, 7-bit (`ESC [`) or 8-bit (0x9B): parameters, intermediates, one final byte. */
const CSI_SEQUENCE = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g;
/** Other escape sequences: ESC, intermediates, one final byte (ESC c resets the terminal, ESC ( B picks a charset). */
const ESC_SEQUENCE = /\x1b[\x20-\x2f]*[\x30-\x7e]/g;
/** Any control left, a lone ESC included, and the bidirectional formatting characters. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/* eslint-enable no-control-regex */

export function safeText(text: string): string {
  return text.replace(STRING_SEQUENCE, "").replace(CSI_SEQUENCE, "").replace(ESC_SEQUENCE, "").replace(CONTROL, "");
}

/** What JSON.stringify leaves raw but a terminal may act on: DEL, C1 and the bidirectional formatting characters. */
const JSON_RAW_CONTROL = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text safe for a terminal that still parses to the same value: JSON.stringify escapes C0 controls (ESC is
 * `\u001b`) but writes DEL, C1 and bidi characters as they are, so those are escaped here too.
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    JSON_RAW_CONTROL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

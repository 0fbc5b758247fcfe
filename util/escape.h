/* util/escape.h — every string from a model, a log, a label or a tag that
 * reaches an output goes through here, escaped for that output's format. One
 * table of formats, one rule set each:
 *
 *  ESC_TERM        a name on a terminal line: C0 controls (newline and tab too)
 *                  and DEL as \xNN, C1 controls, bidi overrides/isolates and
 *                  U+2028/U+2029 as \uXXXX, a byte outside well-formed UTF-8
 *                  as \xNN; other UTF-8 passes. A backslash stays itself.
 *  ESC_TERM_LINES  ESC_TERM for a message whose newlines and tabs are its own.
 *  ESC_GNUPLOT     a double-quoted gnuplot string literal, quotes included.
 *                  " and \ backslash-escaped; ` (command substitution in double
 *                  quotes) and @ (macros) written as octal \140 and \100, so no
 *                  byte of the name can start a substitution; newline, CR, tab
 *                  a space; other controls shown as ESC_TERM does (\\x1b: the
 *                  text \x1b). Enhanced-text markup (_ ^ { } @ &) is the
 *                  caller's: write `noenhanced` where the string is drawn.
 *  ESC_GNUPLOT_DAT one whitespace-separated field of a gnuplot data file:
 *                  whitespace, controls, # " ' ` @ \ ? and bytes outside
 *                  well-formed UTF-8 become _, an empty field is _. Lossy.
 *  ESC_CSV         one RFC 4180 text field: a field starting with = + - @ tab
 *                  CR or ' gets one leading ' (a spreadsheet reads no formula;
 *                  strip one leading ' to read the name back), then quoted in
 *                  "..." with "" when it holds , " CR or LF. NULL is an empty
 *                  field. Only for text cells: numbers never come here.
 *  ESC_MD          Markdown text (table cell, heading, sentence):
 *                  \ | ` * _ [ ] < > # backslash-escaped (but a _ between
 *                  two ASCII letters or digits, which CommonMark never reads
 *                  as emphasis: conv_1 stays conv_1), newline CR tab a
 *                  space (a heading or a row stays one line), other controls
 *                  as ESC_TERM.
 *  ESC_HTML        HTML text or a quoted attribute value: & < > " ' as
 *                  entities, newline CR tab a space, other controls as ESC_TERM.
 *  ESC_JSON        a JSON string, quotes included (util/json.c's json_str;
 *                  NULL is null).
 *
 * NULL is the empty string except where a format says otherwise. */
#ifndef RT_ESCAPE_H
#define RT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum esc_format {
    ESC_TERM, ESC_TERM_LINES, ESC_GNUPLOT, ESC_GNUPLOT_DAT, ESC_CSV, ESC_MD, ESC_HTML, ESC_JSON,
    ESC_NFORMATS
};

/* s escaped into buf of len bytes (len 0: only counts), cut before the
 * escape that does not fit, always NUL-terminated when len > 0. Returns the
 * length of the whole escaped text (as snprintf: >= len means cut). */
size_t esc_buf(int format, const char *s, char *buf, size_t len);
/* s escaped to f; 0, or RT_EIO when f reports a write error. */
int esc_fput(FILE *f, int format, const char *s);
/* s escaped, for an argument of printf: one of 16 buffers reused in turn
 * (up to 16 in one call are safe), or s itself when a terminal format leaves
 * it as it is (printable ASCII). Not for threads printing at the same time. */
const char *esc_tmp(int format, const char *s);

#endif
